package nmclient

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"
)

// Settle asks the host for health every interval until no provider is still
// starting (or a reply is not ok), as a user opening the extension waits
// for its tools, and returns the last health reply. When deadline fires
// first it returns the last reply it has, or ErrTimeout if it has none.
// The CLI's call and doctor's self-test wait this way before they speak.
// Its requests have string ids ("settle.1", ...), leaving numeric ids to
// the caller.
func (c *Client) Settle(interval time.Duration, deadline <-chan time.Time) ([]byte, error) {
	var last []byte
	for n := 1; ; n++ {
		// String ids, so that the caller's numeric ones stay its own.
		id := `"settle.` + strconv.Itoa(n) + `"`
		if err := c.RequestID(json.RawMessage(id), "health", nil); err != nil {
			return nil, err
		}
		reply, err := c.Await(id, deadline)
		if errors.Is(err, ErrTimeout) && last != nil {
			return last, nil
		}
		if err != nil {
			return nil, err
		}
		last = reply
		if !starting(reply) {
			return reply, nil
		}
		select {
		case <-time.After(interval):
		case <-deadline:
			return last, nil
		}
	}
}

// starting reports whether a health reply is ok and names a provider that
// has not finished starting.
func starting(reply []byte) bool {
	var h struct {
		OK        bool `json:"ok"`
		Providers []struct {
			State string `json:"state"`
		} `json:"providers"`
	}
	if json.Unmarshal(reply, &h) != nil || !h.OK {
		return false
	}
	for _, p := range h.Providers {
		if p.State == "starting" {
			return true
		}
	}
	return false
}

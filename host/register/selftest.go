package register

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gnosis/gnosis/host/nmclient"
)

// Health is the part of a health reply the self-test reports.
type Health struct {
	OK           bool   `json:"ok"`
	Status       string `json:"status"`
	Capabilities int    `json:"capabilities"`
	Error        string `json:"error"`
	Providers    []struct {
		Name  string `json:"name"`
		State string `json:"state"`
		Error string `json:"error"`
	} `json:"providers"`
}

// SelfTest starts the host at bin exactly as a browser does (argv[1] = our
// origin, plus --parent-window=0 on Windows; working folder = the binary's
// folder), sends a framed health request and waits up to timeout for the
// reply. The host is then let go by closing its stdin.
func SelfTest(goos, bin string, timeout time.Duration) (Health, error) {
	opts := []nmclient.Option{nmclient.WithOrigin(Origin)}
	if goos == "windows" {
		opts = append(opts, nmclient.WithArgs("--parent-window=0"))
	}
	stderr := nmclient.NewLogTail(64 << 10)
	c, err := nmclient.Start(bin, append(opts, nmclient.WithStderr(stderr))...)
	if err != nil {
		return Health{}, fmt.Errorf("%w (the browser says \"Failed to start native messaging host\")", err)
	}
	defer c.Stop(2 * time.Second)
	deadline := time.After(timeout)
	var last Health
	for {
		id, err := c.Request("health", nil)
		if err != nil {
			return Health{}, fmt.Errorf("send health request: %w%s", err, tail(stderr.String()))
		}
		body, err := c.Await(id, deadline)
		if errors.Is(err, nmclient.ErrTimeout) {
			if last.OK {
				return last, nil // a provider is still starting: report what we have
			}
			return Health{}, fmt.Errorf("no health reply within %s%s", timeout, tail(stderr.String()))
		}
		if err != nil {
			return Health{}, fmt.Errorf("no health reply: %v%s (the browser says \"Native host has exited\" or \"Error when communicating with the native messaging host\")", err, tail(stderr.String()))
		}
		var h Health
		if err := json.Unmarshal(body, &h); err != nil {
			return Health{}, fmt.Errorf("health reply is not JSON: %w", err)
		}
		if !h.OK {
			return h, fmt.Errorf("health reply not ok: %s", body)
		}
		last = h
		if !h.starting() {
			return h, nil
		}
		// A provider is still starting: ask again shortly, within the deadline.
		select {
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			return last, nil
		}
	}
}

// starting reports whether some provider has not finished starting.
func (h Health) starting() bool {
	for _, p := range h.Providers {
		if p.State == "starting" {
			return true
		}
	}
	return false
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if len(s) > 300 {
		s = "..." + s[len(s)-300:]
	}
	return "; stderr: " + s
}

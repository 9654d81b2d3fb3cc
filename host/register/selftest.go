package register

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gnosis/gnosis/host/nmclient"
)

// Health is the part of a health reply the self-test reports.
type Health struct {
	OK           bool             `json:"ok"`
	Status       string           `json:"status"`
	Version      string           `json:"version"`
	Protocol     int              `json:"protocol"`
	Capabilities int              `json:"capabilities"`
	Error        string           `json:"error"`
	Providers    []ProviderHealth `json:"providers"`
}

// ProviderHealth is one provider's entry in a health reply.
type ProviderHealth struct {
	Name         string `json:"name"`
	Prefix       string `json:"prefix"`
	State        string `json:"state"`
	Capabilities int    `json:"capabilities"`
	Error        string `json:"error"`
	Stderr       string `json:"stderr"`
}

// Why a self-test failed, for the doctor to quote what the browser says
// (errors.Is).
var (
	errNotStarted = errors.New("the system cannot start it")
	errExited     = errors.New("it exited without answering")
	errStream     = errors.New("it wrote something on stdout that is not a message")
)

// SelfTest starts the host at bin exactly as a browser does, with args after
// the program (Family.LaunchArgs: our origin, plus --parent-window=0 on
// Windows, for Chromium; the manifest's path and our add-on id for Firefox;
// working folder = the binary's folder), and asks for health, which must come within timeout; then, while
// a provider is starting, asks again, for up to settle (nmclient.Settle).
// The host is then let go by closing its stdin.
func SelfTest(bin string, args []string, timeout, settle time.Duration) (Health, error) {
	var opts []nmclient.Option
	if len(args) > 0 {
		opts = append(opts, nmclient.WithOrigin(args[0]), nmclient.WithArgs(args[1:]...))
	}
	stderr := nmclient.NewLogTail(64 << 10)
	c, err := nmclient.Start(bin, append(opts, nmclient.WithStderr(stderr))...)
	if err != nil {
		return Health{}, fmt.Errorf("%w: %w", errNotStarted, err)
	}
	defer c.Stop(2 * time.Second)
	if err := c.RequestID(json.RawMessage(`"self-test"`), "health", nil); err != nil {
		return Health{}, fmt.Errorf("%w (sending health: %v)%s", errExited, err, tail(stderr.String()))
	}
	_, err = c.Await(`"self-test"`, time.After(timeout))
	var body []byte
	if err == nil {
		body, err = c.Settle(100*time.Millisecond, time.After(settle))
	}
	if errors.Is(err, nmclient.ErrTimeout) {
		return Health{}, fmt.Errorf("no health reply within %s%s", timeout, tail(stderr.String()))
	}
	if errors.Is(err, io.EOF) {
		return Health{}, fmt.Errorf("%w%s", errExited, tail(stderr.String()))
	}
	if err != nil {
		return Health{}, fmt.Errorf("%w: %v%s", errStream, err, tail(stderr.String()))
	}
	var h Health
	if err := json.Unmarshal(body, &h); err != nil {
		return Health{}, fmt.Errorf("health reply is not JSON: %w", err)
	}
	if !h.OK {
		return h, fmt.Errorf("health reply not ok: %s", body)
	}
	return h, nil // a provider may still be starting at the deadline: report what we have
}

// tail is the end of the host's log, to quote in an error.
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

// selfTestFault is the fault behind a self-test's error, if any (a host
// that does not answer in time makes the browser wait, not fail).
func selfTestFault(err error) (Fault, bool) {
	switch {
	case errors.Is(err, errNotStarted):
		return FaultCannotStart, true
	case errors.Is(err, errExited):
		return FaultExited, true
	case errors.Is(err, errStream):
		return FaultStream, true
	}
	return Fault{}, false
}

// degradedReason says, from the health reply itself, why a host that
// answers is not ok: its configuration problem and each provider that is
// not ready, in the host's own words. The doctor's own rows read the
// config file as the doctor sees it, which may not be the file the
// started host read, so the row never points at rows that may not exist.
func degradedReason(h Health) string {
	var why []string
	if h.Error != "" {
		why = append(why, h.Error)
	}
	for _, p := range h.Providers {
		if p.State == "ready" {
			continue
		}
		line := fmt.Sprintf("provider %s is %s", p.Name, p.State)
		if p.Error != "" {
			line += " (" + p.Error + ")"
		}
		why = append(why, line)
	}
	if len(why) == 0 {
		return "the host gave no reason"
	}
	return strings.Join(why, "; ")
}

package register

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gnosis/gnosis/host/framing"
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
	args := []string{Origin}
	if goos == "windows" {
		args = append(args, "--parent-window=0")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Dir(bin)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return Health{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Health{}, err
	}
	if err := cmd.Start(); err != nil {
		return Health{}, fmt.Errorf("start %s: %w (the browser says \"Failed to start native messaging host\")", bin, err)
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	type result struct {
		body []byte
		err  error
	}
	replies := make(chan result, 16)
	go func() {
		for {
			body, err := framing.Read(stdout, nil, framing.MaxOutbound)
			if err != nil {
				replies <- result{nil, err}
				return
			}
			if bytes.Contains(body, []byte(`"id"`)) { // events carry no id
				replies <- result{body, nil}
			}
		}
	}()
	deadline := time.After(timeout)
	var last Health
	for id := 1; ; id++ {
		if err := framing.Write(stdin, []byte(fmt.Sprintf(`{"id":%d,"method":"health"}`, id))); err != nil {
			return Health{}, fmt.Errorf("send health request: %w%s", err, tail(stderr.String()))
		}
		select {
		case r := <-replies:
			if r.err != nil {
				return Health{}, fmt.Errorf("no health reply: %v%s (the browser says \"Native host has exited\" or \"Error when communicating with the native messaging host\")", r.err, tail(stderr.String()))
			}
			var h Health
			if err := json.Unmarshal(r.body, &h); err != nil {
				return Health{}, fmt.Errorf("health reply is not JSON: %w", err)
			}
			if !h.OK {
				return h, fmt.Errorf("health reply not ok: %s", r.body)
			}
			last = h
			if !h.starting() {
				return h, nil
			}
		case <-deadline:
			if last.OK {
				return last, nil // a provider is still starting: report what we have
			}
			return Health{}, fmt.Errorf("no health reply within %s%s", timeout, tail(stderr.String()))
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

// lockedBuffer collects the host's stderr while it runs.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
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

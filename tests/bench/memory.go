package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Memory bounds: the peak RSS (VmHWM) of a fresh host driven through a case
// that once took it to gigabytes, beside the same host doing the same thing
// once (the baseline). Each side runs on a host of its own, so one peak does
// not hide the other.
const (
	readsAtOnce = 100
	readBytes   = 8 << 20 // workspace.read's largest piece
	hugeLine    = 500e6   // a server's result line far past the 64 MiB maximum
	// Targets. The reply budget (64 MiB) lets about six 8 MiB reads build
	// their replies at once, each holding its piece, its base64 and the
	// reply (about 40 MB): well under 400 MB (unbounded, 3.49 GB). A line
	// past the maximum is read up to 64 MiB and then skipped, never held
	// whole: about what a 64 MiB result costs (unbounded, 2.0 GB).
	readsTarget = 400e6
	hugeTarget  = 200e6
)

// memory runs both cases.
func memory(b binaries, dir string) ([]row, error) {
	reads, err := workspaceReads(b, dir)
	if err != nil {
		return nil, fmt.Errorf("workspace reads: %w", err)
	}
	huge, err := hugeResult(b, dir)
	if err != nil {
		return nil, fmt.Errorf("huge result: %w", err)
	}
	return []row{reads, huge}, nil
}

// workspaceReads asks for readsAtOnce pieces of 8 MiB at once, and for one
// on another host.
func workspaceReads(b binaries, dir string) (row, error) {
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return row{}, err
	}
	data := make([]byte, readBytes)
	for i := range data {
		data[i] = byte(i % 251)
	}
	if err := os.WriteFile(filepath.Join(ws, "piece.bin"), data, 0o644); err != nil {
		return row{}, err
	}
	cfg := func() map[string]any {
		return map[string]any{"providers": []any{}, "workspace": map[string]any{"dir": ws}}
	}
	params := map[string]any{"path": "piece.bin", "offset": 0, "length": readBytes}
	one, err := peakOf(b, dir, cfg(), 1, "workspace.read", params)
	if err != nil {
		return row{}, err
	}
	many, err := peakOf(b, dir, cfg(), readsAtOnce, "workspace.read", params)
	if err != nil {
		return row{}, err
	}
	return row{
		what:     fmt.Sprintf("peak RSS, %d × 8 MiB workspace.read at once", readsAtOnce),
		host:     mb(many),
		baseline: "one read " + mb(one),
		target:   "≤ " + mb(readsTarget),
		pass:     verdict(many <= readsTarget),
	}, nil
}

// hugeResult runs fakemunim's huge_line of 500 MB (skipped, the call fails)
// and, on another host, of 16 MiB (a normal large result).
func hugeResult(b binaries, dir string) (row, error) {
	cfg := func() map[string]any {
		return map[string]any{"providers": []map[string]any{{
			"name": "bench", "command": b.fake, "prefix": "bench", "timeout": "120s",
			"env": map[string]string{"FAKEMUNIM_FAULTS": "1"},
		}}}
	}
	call := func(n int) map[string]any {
		return map[string]any{"capability": "bench.huge_line", "arguments": map[string]any{"bytes": n}}
	}
	normal, err := peakOf(b, dir, cfg(), 1, "execute", call(16<<20))
	if err != nil {
		return row{}, err
	}
	huge, err := peakOf(b, dir, cfg(), 1, "execute", call(hugeLine))
	if err != nil {
		return row{}, err
	}
	return row{
		what:     "peak RSS, a 500 MB result line (past the 64 MiB maximum: the call fails)",
		host:     mb(huge),
		baseline: "a 16 MiB result " + mb(normal),
		target:   "≤ " + mb(hugeTarget),
		pass:     verdict(huge <= hugeTarget),
	}, nil
}

// peakOf starts a host with cfg, waits until it is ready, sends n requests
// of method at once, waits for every reply (any outcome: a refused call is
// part of the case) and returns the host's peak RSS.
func peakOf(b binaries, dir string, cfg map[string]any, n int, method string, params any) (int, error) {
	h, err := launchConfig(b, dir, cfg)
	if err != nil {
		return 0, err
	}
	defer h.close()
	if err := h.awaitOK(); err != nil {
		return 0, err
	}
	pending := map[string]bool{}
	for range n {
		id, err := h.c.Request(method, params)
		if err != nil {
			return 0, err
		}
		pending[id] = true
	}
	timeout := time.After(5 * time.Minute)
	for len(pending) > 0 {
		select {
		case m, open := <-h.c.Messages():
			if !open {
				return 0, fmt.Errorf("host output ended: %w", h.c.Err())
			}
			if m.Reply && pending[string(m.ID)] {
				delete(pending, string(m.ID))
			}
		case <-timeout:
			return 0, fmt.Errorf("%d of %d replies missing after 5 minutes", len(pending), n)
		}
	}
	return procBytes(h.c.Pid(), "VmHWM")
}

// awaitOK asks for health until every provider of the host is ready,
// reading its output through Messages.
func (h *hostClient) awaitOK() error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		r, err := h.c.Call("health", nil, time.After(60*time.Second))
		if err != nil {
			return err
		}
		var hr struct {
			Status    string `json:"status"`
			Providers []any  `json:"providers"`
		}
		json.Unmarshal(r, &hr)
		if hr.Status == "ok" || len(hr.Providers) == 0 { // with no provider there is nothing to wait for
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("host not ready in 60 s")
}

func mb(n int) string { return fmt.Sprintf("%.0f MB", float64(n)/1e6) }

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gnosis/gnosis/host/nmclient"
)

// hostClient drives gnosis-host as a browser does (package nmclient), one
// request at a time (the benchmark measures latency, not throughput of
// concurrent calls).
type hostClient struct {
	c *nmclient.Client
	// decode accumulates the time spent decoding frames, so a large
	// transfer's figure can be split into the host's share and ours.
	decode time.Duration
}

// startHost starts the host with a config naming fakemunim with extra tools.
func startHost(b binaries, dir string, extraTools int) (*hostClient, error) {
	// Every capability granted to calls without an origin, as the
	// benchmark's calls are: the policy's check stays on the measured path.
	cfg := map[string]any{"providers": []map[string]any{{
		"name": "munim", "command": b.fake, "prefix": "computer", "timeout": "60s",
		"env": map[string]string{"FAKEMUNIM_TOOLS": fmt.Sprint(extraTools)},
	}}, "policy": map[string]any{"default": []string{"*"}, "origins": map[string]any{}}}
	raw, _ := json.Marshal(cfg)
	path := filepath.Join(dir, fmt.Sprintf("config-%d.json", extraTools))
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return nil, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"GNOSIS_CONFIG=" + path, "GNOSIS_LOG_LEVEL=warn"}
	c, err := nmclient.Start(b.host, nmclient.WithEnv(env), nmclient.WithInlineReads())
	if err != nil {
		return nil, err
	}
	return &hostClient{c: c}, nil
}

// startReady starts the host as startHost does and waits until its provider
// is ready.
func startReady(b binaries, dir string, extraTools int) (*hostClient, error) {
	h, err := startHost(b, dir, extraTools)
	if err != nil {
		return nil, err
	}
	if err := h.waitReady(); err != nil {
		h.close()
		return nil, err
	}
	return h, nil
}

// call sends one request and returns its reply's JSON (reassembled if chunked).
func (h *hostClient) call(method string, params any) ([]byte, error) {
	before := h.c.Stats().Decode
	reply, err := h.c.Call(method, params, nil)
	h.decode += h.c.Stats().Decode - before
	return reply, err
}

// ok checks a reply is a success.
func ok(reply []byte) error {
	var r struct {
		OK bool `json:"ok"`
	}
	if err := json.Unmarshal(reply, &r); err != nil {
		return err
	}
	if !r.OK {
		if len(reply) > 300 {
			reply = reply[:300]
		}
		return fmt.Errorf("reply not ok: %s", reply)
	}
	return nil
}

// waitReady polls health until the provider is ready.
func (h *hostClient) waitReady() error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		r, err := h.call("health", nil)
		if err != nil {
			return err
		}
		var hr struct {
			Status string `json:"status"`
		}
		json.Unmarshal(r, &hr)
		if hr.Status == "ok" {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("host not ready in 30 s")
}

func (h *hostClient) close() { h.c.Stop(5 * time.Second) }

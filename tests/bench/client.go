package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/gnosis/gnosis/host/nmclient"
)

// hostClient drives gnosis-host as a browser does (package nmclient), one
// request at a time (the benchmark measures latency, not throughput of
// concurrent calls).
type hostClient struct {
	c *nmclient.Client
}

// configs numbers the config files written, one per host started.
var configs atomic.Int64

// startHost starts the host with a config naming the given server, or no
// provider at all when s is nil. Every capability is granted to calls
// without an origin, as the benchmark's calls are: the policy's check stays
// on the measured path.
func startHost(b binaries, dir string, s *server) (*hostClient, error) {
	return launchHost(b, dir, s, nmclient.WithInlineReads())
}

// launchHost starts the host as startHost describes, with nmclient's options.
func launchHost(b binaries, dir string, s *server, opts ...nmclient.Option) (*hostClient, error) {
	providers := []map[string]any{}
	if s != nil {
		providers = append(providers, s.provider())
	}
	return launchConfig(b, dir, map[string]any{"providers": providers}, opts...)
}

// launchConfig starts the host with the config cfg, its policy granting
// every capability to calls without an origin, with nmclient's options.
func launchConfig(b binaries, dir string, cfg map[string]any, opts ...nmclient.Option) (*hostClient, error) {
	cfg["policy"] = map[string]any{"default": []string{"*"}, "origins": map[string]any{}}
	raw, _ := json.Marshal(cfg)
	path := filepath.Join(dir, fmt.Sprintf("config-%d.json", configs.Add(1)))
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return nil, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"GNOSIS_CONFIG=" + path, "GNOSIS_LOG_LEVEL=warn"}
	if p := os.Getenv("GNOSIS_CPUPROFILE"); p != "" {
		env = append(env, "GNOSIS_CPUPROFILE="+p)
	}
	c, err := nmclient.Start(b.host, append([]nmclient.Option{nmclient.WithEnv(env)}, opts...)...)
	if err != nil {
		return nil, err
	}
	return &hostClient{c: c}, nil
}

// startReady starts the host as startHost does and waits until it is ready.
func startReady(b binaries, dir string, s *server) (*hostClient, error) {
	h, err := startHost(b, dir, s)
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
	return h.c.Call(method, params, nil)
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

// waitReady asks for health every 200 µs until the host reports "ok": every
// provider ready with its tools listed. The parts that measure a ready host,
// not its start, use it; coldStart uses startAwaitReady.
func (h *hostClient) waitReady() error {
	deadline := time.Now().Add(60 * time.Second)
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
		time.Sleep(200 * time.Microsecond)
	}
	return fmt.Errorf("host not ready in 60 s")
}

// startAwaitReady starts the host and returns once it has answered a health
// request and reported its provider ready, whichever comes last: the
// provider.state event a browser waits for, or the health reply itself when
// the provider was ready first. Nothing is polled, so the measurement adds no
// load to the start it measures.
func startAwaitReady(b binaries, dir string, s *server) (*hostClient, error) {
	h, err := launchHost(b, dir, s)
	if err != nil {
		return nil, err
	}
	id, err := h.c.Request("health", nil)
	if err != nil {
		h.close()
		return nil, err
	}
	replied, ready := false, false
	timeout := time.After(60 * time.Second)
	for !replied || !ready {
		select {
		case m, open := <-h.c.Messages():
			if !open {
				h.close()
				return nil, fmt.Errorf("host output ended before it was ready: %w", h.c.Err())
			}
			var v struct {
				Event  string `json:"event"`
				State  string `json:"state"`
				Status string `json:"status"`
			}
			json.Unmarshal(m.Body, &v)
			switch {
			case m.Reply && string(m.ID) == id:
				replied = true
				ready = ready || v.Status == "ok"
			case !m.Reply && v.Event == "provider.state" && v.State == "ready":
				ready = true
			}
		case <-timeout:
			h.close()
			return nil, fmt.Errorf("host not ready in 60 s")
		}
	}
	return h, nil
}

func (h *hostClient) close() { h.c.Stop(5 * time.Second) }

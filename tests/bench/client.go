package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// extensionOrigin is what Chrome passes as argv[1] to our host.
const extensionOrigin = "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/"

// hostClient drives gnosis-host as a browser does, one request at a time
// (the benchmark measures latency, not throughput of concurrent calls).
type hostClient struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	next   int
	buf    []byte
	// decode accumulates the time spent decoding frames, so a large
	// transfer's figure can be split into the host's share and ours.
	decode time.Duration
}

// startHost starts the host with a config naming fakemunim with extra tools.
func startHost(b binaries, dir string, extraTools int) (*hostClient, error) {
	cfg := map[string]any{"providers": []map[string]any{{
		"name": "munim", "command": b.fake, "prefix": "computer", "timeout": "60s",
		"env": map[string]string{"FAKEMUNIM_TOOLS": fmt.Sprint(extraTools)},
	}}}
	raw, _ := json.Marshal(cfg)
	path := filepath.Join(dir, fmt.Sprintf("config-%d.json", extraTools))
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(b.host, extensionOrigin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"GNOSIS_CONFIG=" + path, "GNOSIS_LOG_LEVEL=warn"}
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &hostClient{cmd: cmd, stdin: in, stdout: bufio.NewReaderSize(out, 1<<20)}, nil
}

// call sends one request and returns its reply's JSON (reassembled if chunked).
func (h *hostClient) call(method string, params any) ([]byte, error) {
	h.next++
	id := h.next
	req, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	frame := make([]byte, 4+len(req))
	binary.LittleEndian.PutUint32(frame, uint32(len(req)))
	copy(frame[4:], req)
	if _, err := h.stdin.Write(frame); err != nil {
		return nil, err
	}
	var chunks strings.Builder
	for {
		body, err := h.frame()
		if err != nil {
			return nil, err
		}
		var m struct {
			ID     *int   `json:"id"`
			Chunk  *int   `json:"chunk"`
			Chunks int    `json:"chunks"`
			Data   string `json:"data"`
		}
		t0 := time.Now()
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("bad frame: %w", err)
		}
		h.decode += time.Since(t0)
		if m.ID == nil || *m.ID != id {
			continue // an event
		}
		if m.Chunk == nil {
			return body, nil
		}
		chunks.WriteString(m.Data)
		if *m.Chunk == m.Chunks-1 {
			return []byte(chunks.String()), nil
		}
	}
}

func (h *hostClient) frame() ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(h.stdout, hdr[:]); err != nil {
		return nil, err
	}
	n := int(binary.LittleEndian.Uint32(hdr[:]))
	if cap(h.buf) < n {
		h.buf = make([]byte, n)
	}
	body := h.buf[:n]
	_, err := io.ReadFull(h.stdout, body)
	return body, err
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

func (h *hostClient) close() {
	h.stdin.Close()
	done := make(chan struct{})
	go func() { h.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		h.cmd.Process.Kill()
		<-done
	}
}

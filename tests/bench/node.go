package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/gnosis/gnosis/host/nmclient"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// everythingScript is the real Node server @modelcontextprotocol/server-everything
// from the repository's node_modules, "" when it (or node) is missing.
func everythingScript() string {
	p, err := filepath.Abs("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		return ""
	}
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	if _, err := exec.LookPath("node"); err != nil {
		return ""
	}
	return p
}

// nodeLatency repeats the latency comparison against server-everything:
// its echo tool through a direct mcp-go client, through the host, and the
// host's no-op, in alternating batches.
func nodeLatency(b binaries, dir string, rounds, batch int) ([]row, error) {
	script := everythingScript()
	if script == "" {
		return []row{{what: "server-everything (Node) latency", host: "skipped: run npm ci and install node"}}, nil
	}
	ctx := context.Background()
	tr := transport.NewStdio("node", nil, script, "stdio")
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "gnosis-bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return nil, err
	}

	cfg, _ := json.Marshal(map[string]any{
		"providers": []map[string]any{{"name": "everything", "command": "node", "args": []string{script, "stdio"}, "prefix": "everything", "timeout": "60s"}},
		"policy":    map[string]any{"default": []string{"*"}, "origins": map[string]any{}},
	})
	path := filepath.Join(dir, "config-node.json")
	if err := os.WriteFile(path, cfg, 0o644); err != nil {
		return nil, err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"GNOSIS_CONFIG=" + path, "GNOSIS_LOG_LEVEL=warn"}
	nc, err := nmclient.Start(b.host, nmclient.WithEnv(env), nmclient.WithInlineReads())
	if err != nil {
		return nil, err
	}
	h := &hostClient{c: nc}
	defer h.close()
	if err := h.waitReady(); err != nil {
		return nil, err
	}

	args := map[string]any{"message": "hello"}
	execParams := map[string]any{"capability": "everything.echo", "arguments": args}
	for i := 0; i < 200; i++ { // warm up both sides (V8's JIT included)
		if _, err := callDirect(c, "echo", args); err != nil {
			return nil, err
		}
		rep, err := h.call("execute", execParams)
		if err != nil {
			return nil, err
		}
		if err := ok(rep); err != nil {
			return nil, err
		}
	}
	var direct, exec_, noop []time.Duration
	for r := 0; r < rounds; r++ {
		for i := 0; i < batch; i++ {
			t0 := time.Now()
			if _, err := callDirect(c, "echo", args); err != nil {
				return nil, err
			}
			direct = append(direct, time.Since(t0))
		}
		for i := 0; i < batch; i++ {
			t0 := time.Now()
			if _, err := h.call("execute", execParams); err != nil {
				return nil, err
			}
			exec_ = append(exec_, time.Since(t0))
		}
		for i := 0; i < batch; i++ {
			t0 := time.Now()
			if _, err := h.call("health", nil); err != nil {
				return nil, err
			}
			noop = append(noop, time.Since(t0))
		}
	}
	d50, e50, n50 := pct(direct, 50), pct(exec_, 50), pct(noop, 50)
	ratio := float64(e50) / float64(d50+n50)
	return []row{
		{what: fmt.Sprintf("server-everything (Node) execute echo p50 (n=%d)", len(exec_)), host: us(e50), baseline: "direct " + us(d50) + ", no-op " + us(n50)},
		{what: "  execute p50 ÷ (direct + no-op)", host: fmt.Sprintf("%.2f×", ratio), target: "≤ 1.15×", pass: verdict(ratio <= 1.15)},
	}, nil
}

package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// direct starts fakemunim under a plain mcp-go client, the way the host's
// provider does (legacy handshake pinned), and lists its tools.
func direct(b binaries, extraTools int) (*client.Client, int, error) {
	ctx := context.Background()
	tr := transport.NewStdio(b.fake, []string{"FAKEMUNIM_TOOLS=" + strconv.Itoa(extraTools)})
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	if err := c.Start(ctx); err != nil {
		return nil, 0, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "gnosis-bench", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, 0, err
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		c.Close()
		return nil, 0, err
	}
	return c, len(tools.Tools), nil
}

func callDirect(c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err == nil && res.IsError {
		err = fmt.Errorf("tool error")
	}
	return res, err
}

// latency alternates batches of direct echo calls, host executes of echo,
// and host health round trips (the host's own cost with no provider).
func latency(b binaries, dir string, rounds, batch int) ([]row, error) {
	c, _, err := direct(b, 0)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	h, err := startReady(b, dir, 0)
	if err != nil {
		return nil, err
	}
	defer h.close()
	args := map[string]any{"text": "hello", "n": 1}
	execParams := map[string]any{"capability": "computer.echo", "arguments": args}
	// Warm up both paths.
	for i := 0; i < 200; i++ {
		if _, err := callDirect(c, "echo", args); err != nil {
			return nil, err
		}
		if _, err := h.call("execute", execParams); err != nil {
			return nil, err
		}
	}
	metaParams := map[string]any{"capability": "capabilities.describe", "arguments": map[string]any{"name": "computer.echo"}}
	var dir_, exec_, noop, meta []time.Duration
	for r := 0; r < rounds; r++ {
		for i := 0; i < batch; i++ {
			t0 := time.Now()
			if _, err := callDirect(c, "echo", args); err != nil {
				return nil, err
			}
			dir_ = append(dir_, time.Since(t0))
		}
		for i := 0; i < batch; i++ {
			t0 := time.Now()
			rep, err := h.call("execute", execParams)
			d := time.Since(t0)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				if err := ok(rep); err != nil {
					return nil, err
				}
			}
			exec_ = append(exec_, d)
		}
		for i := 0; i < batch; i++ {
			t0 := time.Now()
			if _, err := h.call("health", nil); err != nil {
				return nil, err
			}
			noop = append(noop, time.Since(t0))
		}
		for i := 0; i < batch; i++ {
			t0 := time.Now()
			if _, err := h.call("execute", metaParams); err != nil {
				return nil, err
			}
			meta = append(meta, time.Since(t0))
		}
	}
	dp50, dp99 := pct(dir_, 50), pct(dir_, 99)
	ep50, ep99 := pct(exec_, 50), pct(exec_, 99)
	np50 := pct(noop, 50)
	added := ep50 - dp50
	budget := time.Duration(1.15 * float64(dp50+np50))
	n := len(exec_)
	return []row{
		{what: fmt.Sprintf("execute echo p50 (n=%d)", n), host: us(ep50), baseline: "direct " + us(dp50)},
		{what: "execute echo p99", host: us(ep99), baseline: "direct " + us(dp99), target: "≤ 2× direct = " + us(2*dp99), pass: verdict(ep99 <= 2*dp99)},
		{what: "host no-op (health) p50", host: us(np50), baseline: "p99 " + us(pct(noop, 99))},
		{what: "execute of a meta-capability (no provider) p50", host: us(pct(meta, 50)), baseline: "p99 " + us(pct(meta, 99))},
		{what: "added p50 over direct", host: us(added), baseline: "", target: "≤ 40µs", pass: verdict(added <= 40*time.Microsecond)},
		{what: "execute p50 vs 1.15×(direct+no-op)", host: us(ep50), baseline: us(dp50) + " + " + us(np50), target: "≤ " + us(budget), pass: verdict(ep50 <= budget)},
		{what: "seed Node/Express p50 (reference)", host: "", baseline: "~750µs"},
	}, nil
}

// coldStart measures, alternately, a host from exec to (1) its first
// capabilities.list reply and (2) the first one listing all 50 tools, and a
// direct client from exec through initialize and tools/list.
func coldStart(b binaries, dir string, runs int) ([]row, error) {
	// Extra trivial tools on top of fakemunim's built-in ones: 50 in all.
	c, builtin, err := direct(b, 0)
	if err != nil {
		return nil, err
	}
	c.Close()
	extra := 50 - builtin
	var first, full, dir_ []time.Duration
	want := 0
	for i := 0; i < runs; i++ {
		t0 := time.Now()
		c, n, err := direct(b, extra)
		if err != nil {
			return nil, err
		}
		dir_ = append(dir_, time.Since(t0))
		c.Close()
		want = n

		t0 = time.Now()
		h, err := startHost(b, dir, extra)
		if err != nil {
			return nil, err
		}
		gotFirst := false
		for {
			rep, err := h.call("capabilities.list", nil)
			if err != nil {
				h.close()
				return nil, err
			}
			if !gotFirst {
				first = append(first, time.Since(t0))
				gotFirst = true
			}
			var l struct {
				Capabilities []json.RawMessage `json:"capabilities"`
			}
			json.Unmarshal(rep, &l)
			if len(l.Capabilities) >= want+2 {
				full = append(full, time.Since(t0))
				break
			}
			if time.Since(t0) > 30*time.Second {
				h.close()
				return nil, fmt.Errorf("host never listed %d tools", want)
			}
			time.Sleep(200 * time.Microsecond)
		}
		h.close()
	}
	f50, full50, d50 := pct(first, 50), pct(full, 50), pct(dir_, 50)
	return []row{
		{what: fmt.Sprintf("cold start → first capabilities.list (%d tools, median of %d)", want, runs), host: ms(f50), baseline: "", target: "≤ 60ms", pass: verdict(f50 <= 60*time.Millisecond)},
		{what: fmt.Sprintf("cold start → list with all %d tools", want), host: ms(full50), baseline: "direct start+init+list " + ms(d50), target: "≤ 60ms", pass: verdict(full50 <= 60*time.Millisecond)},
		{what: "seed Node/Express to ready (reference)", baseline: "~450ms"},
	}, nil
}

// bigResult moves a screenshot whose result JSON is about 16 MiB (12 MiB of
// image, base64 makes it 16 MiB) through the host and through the direct client.
func bigResult(b binaries, dir string, runs int) ([]row, error) {
	const img = 12 << 20
	c, _, err := direct(b, 0)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	h, err := startReady(b, dir, 0)
	if err != nil {
		return nil, err
	}
	defer h.close()
	raw, err := startRaw(b)
	if err != nil {
		return nil, err
	}
	defer raw.close()
	rawParams := fmt.Sprintf(`{"name":"screenshot","arguments":{"bytes":%d}}`, img)
	args := map[string]any{"bytes": img}
	var hd, dd, rd, cd, own []time.Duration
	size := 0
	for i := 0; i < runs+1; i++ { // the first round warms up
		t0 := time.Now()
		res, err := callDirect(c, "screenshot", args)
		d := time.Since(t0)
		if err != nil {
			return nil, err
		}
		if im, ok := res.Content[0].(mcp.ImageContent); !ok || base64.StdEncoding.DecodedLen(len(im.Data)) < img {
			return nil, fmt.Errorf("direct screenshot too small")
		}
		t0 = time.Now()
		if _, err := raw.call("tools/call", rawParams); err != nil {
			return nil, err
		}
		r := time.Since(t0)
		h.decode = 0
		t0 = time.Now()
		rep, err := h.call("execute", map[string]any{"capability": "computer.screenshot", "arguments": args})
		e := time.Since(t0)
		if err != nil {
			return nil, err
		}
		if err := ok(rep); err != nil {
			return nil, err
		}
		size = len(rep)
		if i > 0 {
			dd, hd, rd, cd = append(dd, d), append(hd, e), append(rd, r), append(cd, h.decode)
			own = append(own, e-r-h.decode)
		}
	}
	h50, d50, r50, c50, o50 := pct(hd, 50), pct(dd, 50), pct(rd, 50), pct(cd, 50), pct(own, 50)
	mbps := func(d time.Duration) float64 { return float64(size) / 1e6 / d.Seconds() }
	return []row{
		{what: fmt.Sprintf("16 MiB result (%.1f MB reply, median of %d)", float64(size)/1e6, runs), host: ms(h50), baseline: "direct " + ms(d50), target: "≤ 1.3× direct = " + ms(time.Duration(1.3*float64(d50))), pass: verdict(float64(h50) <= 1.3*float64(d50))},
		{what: "16 MiB result throughput, end to end", host: fmt.Sprintf("%.0f MB/s", mbps(h50)), baseline: fmt.Sprintf("direct %.0f MB/s", mbps(d50)), target: "≥ 150 MB/s", pass: verdict(mbps(h50) >= 150)},
		{what: "  floor: server + pipe, raw JSON-RPC client", host: "", baseline: ms(r50) + fmt.Sprintf(" (%.0f MB/s)", mbps(r50))},
		{what: "  of the host figure: bench client decoding chunks", host: ms(c50)},
		{what: "  host's own share (host − floor − client decode, per round)", host: fmt.Sprintf("%s (%.0f MB/s)", ms(o50), mbps(o50)), baseline: "", target: "≥ 150 MB/s", pass: verdict(o50 <= 0 || mbps(o50) >= 150)},
	}, nil
}

// idleRSS reads the resident memory of a ready, idle host, and of the same
// host after the 16 MiB transfer has been garbage collected for a second.
func idleRSS(b binaries, dir string) ([]row, error) {
	c, builtin, err := direct(b, 0)
	if err != nil {
		return nil, err
	}
	c.Close()
	h, err := startReady(b, dir, 50-builtin)
	if err != nil {
		return nil, err
	}
	defer h.close()
	time.Sleep(500 * time.Millisecond)
	idle, err := rss(h.c.Pid())
	if err != nil {
		return nil, err
	}
	fake := 0
	if kids := children(h.c.Pid()); len(kids) > 0 {
		fake, _ = rss(kids[0])
	}
	return []row{
		{what: "RSS of the idle host (50-tool provider ready)", host: fmt.Sprintf("%.1f MB", float64(idle)/1e6), baseline: fmt.Sprintf("fakemunim %.1f MB; seed ~82 MB", float64(fake)/1e6), target: "≤ 20 MB", pass: verdict(idle <= 20e6)},
	}, nil
}

// rss returns VmRSS of pid in bytes.
func rss(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			kb, err := strconv.Atoi(f[1])
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d", pid)
}

// children lists the direct children of pid (by the ppid field of /proc/*/stat).
func children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:]) // state, ppid, ...
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	i := (len(s)*p + 99) / 100
	return s[max(0, min(len(s)-1, i-1))]
}

func us(d time.Duration) string { return fmt.Sprintf("%.0fµs", float64(d)/1e3) }
func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/1e6) }

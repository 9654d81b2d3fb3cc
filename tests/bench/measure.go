package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Performance targets the benchmark checks: ratios to baselines measured in
// the same run, and the idle host's memory.
const (
	execTarget = 1.15 // execute p50 ÷ (direct p50 + host health p50)
	coldTarget = 1.2  // cold start ÷ (bare host to first health + direct spawn, initialize, tools/list)
	bigTarget  = 1.3  // 16 MiB result through the host ÷ through the direct client
	rssTarget  = 20e6 // bytes, idle host with its provider ready
)

// latency alternates batches of direct echo calls, host executes of the same
// tool, and host health round trips (the host's own no-op, no provider
// involved).
func latency(b binaries, dir string, s server, rounds, batch int) ([]row, error) {
	t, err := execLatency(b, dir, s, s.echo, s.echoArgs, rounds, batch, nil)
	if err != nil {
		return nil, err
	}
	return []row{t.row(fmt.Sprintf("execute p50 ÷ (direct p50 + host health p50), n=%d each", len(t.exec)))}, nil
}

// execTimes are the durations of one execLatency run, each kind in its own
// slice.
type execTimes struct{ direct, exec, health []time.Duration }

// execLatency warms up with 200 pairs of a direct call of tool and a host
// execute of bench.<tool> (both paths and V8's JIT), then alternates, for
// rounds, a batch of direct calls, a batch of host executes and a batch of
// host health round trips, so that machine drift falls on all three. warm,
// when not nil, checks each warm-up pair (the direct result and the host's
// reply, already checked ok).
func execLatency(b binaries, dir string, s server, tool string, args map[string]any, rounds, batch int, warm func(*mcp.CallToolResult, []byte) error) (execTimes, error) {
	var t execTimes
	c, _, err := s.dial()
	if err != nil {
		return t, err
	}
	defer c.Close()
	h, err := startReady(b, dir, &s)
	if err != nil {
		return t, err
	}
	defer h.close()
	params := map[string]any{"capability": "bench." + tool, "arguments": args}
	for i := 0; i < 200; i++ {
		res, err := callDirect(c, tool, args)
		if err != nil {
			return t, err
		}
		rep, err := h.call("execute", params)
		if err != nil {
			return t, err
		}
		if err := ok(rep); err != nil {
			return t, err
		}
		if warm != nil {
			if err := warm(res, rep); err != nil {
				return t, err
			}
		}
	}
	for r := 0; r < rounds; r++ {
		for i := 0; i < batch; i++ {
			t0 := time.Now()
			if _, err := callDirect(c, tool, args); err != nil {
				return t, err
			}
			t.direct = append(t.direct, time.Since(t0))
		}
		for i := 0; i < batch; i++ {
			t0 := time.Now()
			rep, err := h.call("execute", params)
			d := time.Since(t0)
			if err != nil {
				return t, err
			}
			if i == 0 {
				if err := ok(rep); err != nil {
					return t, err
				}
			}
			t.exec = append(t.exec, d)
		}
		for i := 0; i < batch; i++ {
			t0 := time.Now()
			if _, err := h.call("health", nil); err != nil {
				return t, err
			}
			t.health = append(t.health, time.Since(t0))
		}
	}
	return t, nil
}

// row compares t's execute p50 with its direct p50 plus its health p50,
// against execTarget.
func (t execTimes) row(what string) row {
	d50, e50, n50 := pct(t.direct, 50), pct(t.exec, 50), pct(t.health, 50)
	ratio := float64(e50) / float64(d50+n50)
	return row{
		what:     what,
		host:     fmt.Sprintf("%.2f×", ratio),
		baseline: fmt.Sprintf("%s ÷ (%s + %s); p99 %s, direct %s", us(e50), us(d50), us(n50), us(pct(t.exec, 99)), us(pct(t.direct, 99))),
		target:   fmt.Sprintf("≤ %.2f×", execTarget),
		pass:     verdict(ratio <= execTarget),
	}
}

// coldStart measures, in rotating order, (1) the host from exec to ready:
// its provider ready with its tools listed, and a health reply (see
// startAwaitReady), (2) the host with no provider from exec to its first
// health reply, and (3) a direct client's spawn of the server through
// initialize and tools/list.
func coldStart(b binaries, dir string, s server, runs int) ([]row, error) {
	var ready, bare, direct []time.Duration
	tools := 0
	steps := []func() error{
		func() error {
			t0 := time.Now()
			h, err := startAwaitReady(b, dir, &s)
			if err != nil {
				return err
			}
			ready = append(ready, time.Since(t0))
			h.close()
			return nil
		},
		func() error {
			t0 := time.Now()
			h, err := startHost(b, dir, nil)
			if err != nil {
				return err
			}
			_, err = h.call("health", nil)
			bare = append(bare, time.Since(t0))
			h.close()
			return err
		},
		func() error {
			t0 := time.Now()
			c, n, err := s.dial()
			if err != nil {
				return err
			}
			direct = append(direct, time.Since(t0))
			tools = n
			return c.Close()
		},
	}
	for i := 0; i < runs+1; i++ { // the first round warms the page cache
		for j := range steps {
			if err := steps[(i+j)%len(steps)](); err != nil {
				return nil, err
			}
		}
		if i == 0 {
			ready, bare, direct = nil, nil, nil
		}
	}
	r50, b50, d50 := pct(ready, 50), pct(bare, 50), pct(direct, 50)
	ratio := float64(r50) / float64(b50+d50)
	return []row{{
		what:     fmt.Sprintf("cold start to ready ÷ (bare host to health + direct start), %d tools, median of %d", tools, runs),
		host:     fmt.Sprintf("%.2f×", ratio),
		baseline: fmt.Sprintf("%s ÷ (%s + %s)", ms(r50), ms(b50), ms(d50)),
		target:   fmt.Sprintf("≤ %.2f×", coldTarget),
		pass:     verdict(ratio <= coldTarget),
	}}, nil
}

// bigResult moves a result of about 16 MiB through the host and through the
// direct client, alternately.
func bigResult(b binaries, dir string, s server, runs int) ([]row, error) {
	c, _, err := s.dial()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	h, err := startReady(b, dir, &s)
	if err != nil {
		return nil, err
	}
	defer h.close()
	params := map[string]any{"capability": "bench." + s.big, "arguments": s.bigArgs}
	var hd, dd []time.Duration
	size := 0
	for i := 0; i < runs+1; i++ { // the first round warms up
		t0 := time.Now()
		res, err := callDirect(c, s.big, s.bigArgs)
		d := time.Since(t0)
		if err != nil {
			return nil, err
		}
		if err := s.bigCheck(res); err != nil {
			return nil, err
		}
		t0 = time.Now()
		rep, err := h.call("execute", params)
		e := time.Since(t0)
		if err != nil {
			return nil, err
		}
		if err := ok(rep); err != nil {
			return nil, err
		}
		size = len(rep)
		if i > 0 {
			dd, hd = append(dd, d), append(hd, e)
		}
	}
	h50, d50 := pct(hd, 50), pct(dd, 50)
	ratio := float64(h50) / float64(d50)
	return []row{{
		what:     fmt.Sprintf("16 MiB result ÷ direct (%.1f MB reply, median of %d)", float64(size)/1e6, runs),
		host:     fmt.Sprintf("%.2f×", ratio),
		baseline: fmt.Sprintf("%s ÷ %s", ms(h50), ms(d50)),
		target:   fmt.Sprintf("≤ %.2f×", bigTarget),
		pass:     verdict(ratio <= bigTarget),
	}}, nil
}

// idleRSS reads the resident memory of a ready host left idle for half a
// second.
func idleRSS(b binaries, dir string, s server) ([]row, error) {
	h, err := startReady(b, dir, &s)
	if err != nil {
		return nil, err
	}
	defer h.close()
	time.Sleep(500 * time.Millisecond)
	idle, err := rss(h.c.Pid())
	if err != nil {
		return nil, err
	}
	server := ""
	if kids := children(h.c.Pid()); len(kids) > 0 {
		if n, err := rss(kids[0]); err == nil {
			server = fmt.Sprintf("the server itself %.1f MB", float64(n)/1e6)
		}
	}
	return []row{{
		what:     "idle RSS, provider ready",
		host:     fmt.Sprintf("%.1f MB", float64(idle)/1e6),
		baseline: server,
		target:   fmt.Sprintf("≤ %.0f MB", rssTarget/1e6),
		pass:     verdict(idle <= rssTarget),
	}}, nil
}

// rss returns VmRSS of pid in bytes.
func rss(pid int) (int, error) { return procBytes(pid, "VmRSS") }

// procBytes returns the field (VmRSS, VmHWM) of /proc/pid/status in bytes.
func procBytes(pid int, field string) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, field+":") {
			f := strings.Fields(l)
			kb, err := strconv.Atoi(f[1])
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no %s for %d", field, pid)
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

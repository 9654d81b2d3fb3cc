package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestInflightLimitRefusesBigRequestsAndKeepsServing: with
// "limits": {"inflightBytes": 32 MiB}, one slow call carrying 24 MiB runs;
// nine more like it sent at once are each answered OVERLOADED to their own
// id while health and a small call still succeed, and the host's peak
// memory stays far below the 240 MiB those requests would have held. Once
// the running call is cancelled, its bytes are given back and the same big
// request runs.
func TestInflightLimitRefusesBigRequestsAndKeepsServing(t *testing.T) {
	const (
		limit = 32 << 20
		pad   = 24 << 20
		n     = 10
	)
	f := newFake(t)
	// The big calls are cancelled by the test: a provider timeout must not
	// end the first one (and give its bytes back) while the others are
	// still being written, however slow the machine.
	standard := standardConfig(f)
	standard.Providers[0].Timeout = "10m"
	cfg, err := json.Marshal(standard)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(cfg, &raw); err != nil {
		t.Fatal(err)
	}
	raw["limits"] = map[string]any{"inflightBytes": limit}
	withLimit, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	h := startHost(t, hostOptions{rawConfig: string(withLimit)})
	h.awaitReady()

	padding := strings.Repeat("x", pad)
	big := func(tag string) map[string]any {
		p := executeParams("computer.slow", map[string]any{"ms": 600000, "tag": tag}, "")
		p["pad"] = padding // params fields the method does not know are ignored
		return p
	}
	first := h.send("execute", big("big0"))
	f.awaitStarted("big0")
	var refused []string
	for i := 1; i < n; i++ {
		refused = append(refused, h.send("execute", big(fmt.Sprintf("big%d", i))))
	}
	for _, id := range refused {
		wantError(t, h.await(id), "OVERLOADED")
	}
	stillServing(t, h)
	wantOK(t, h.execute("computer.echo", map[string]any{"text": "small"}))
	if peak, ok := peakRSS(h.c.Pid()); ok {
		t.Logf("host peak RSS %d MiB", peak>>20)
		if peak > 150<<20 {
			t.Errorf("host peak RSS %d MiB with %d requests of %d MiB and a %d MiB limit", peak>>20, n, pad>>20, limit>>20)
		}
	}

	wantOK(t, h.call("cancel", map[string]any{"id": mustAtoi(t, first)}))
	wantError(t, h.await(first), "CANCELLED")
	again := h.send("execute", big("again"))
	f.awaitStarted("again")
	wantOK(t, h.call("cancel", map[string]any{"id": mustAtoi(t, again)}))
	wantError(t, h.await(again), "CANCELLED")
}

// peakRSS is the process's peak resident set size (VmHWM) in bytes; ok is
// false where /proc is not available.
func peakRSS(pid int) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, found := strings.CutPrefix(line, "VmHWM:"); found {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

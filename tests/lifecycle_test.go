package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/gnosis/gnosis/internal/testwait"
)

// TestCrashRestart: the server dying mid-call fails that call (and any other
// in flight) with PROVIDER_UNAVAILABLE; provider.state events report the way
// down and back; while it restarts, health says so, the capabilities stay
// listed, and a call waits for the restart and runs on the new process.
func TestCrashRestart(t *testing.T) {
	testshort.Parallel(t)
	h, f := startStandard(t)
	first := f.awaitCallPID(t, h)
	mark := h.eventMark()

	inflight := h.send("execute", executeParams("computer.slow", map[string]any{"ms": 600000, "tag": "victim"}, ""))
	f.awaitStarted("victim")
	// The restarted server waits 5 s before serving, a window in which the
	// provider is certainly not ready.
	r := h.execute("computer.crash", map[string]any{"delay_next_start_ms": 5000})
	wantError(t, r, "PROVIDER_UNAVAILABLE")
	wantError(t, h.await(inflight), "PROVIDER_UNAVAILABLE")

	down := h.awaitEvent(mark, "provider.state not ready", func(e event) bool {
		return e.Event == "provider.state" && e.Name == "munim" && e.State != "ready"
	})
	if down.Prefix != "computer" {
		t.Errorf("provider.state event without prefix: %s", down.raw)
	}
	h.awaitEvent(mark, "provider.state starting", func(e event) bool {
		return e.Event == "provider.state" && e.Name == "munim" && e.State == "starting"
	})
	var hr healthReply
	json.Unmarshal(h.call("health", nil).raw, &hr)
	if hr.Status != "degraded" || len(hr.Providers) != 1 || hr.Providers[0].State == "ready" {
		t.Errorf("health during restart: %+v", hr)
	}
	// The capabilities stay listed while the provider is away.
	if !slices.Contains(capabilityNames(t, h), "computer.echo") {
		t.Errorf("computer.echo not listed during restart")
	}
	// A call sent while the server restarts waits for it.
	wantOK(t, h.execute("computer.echo", map[string]any{"during": "restart"}))
	during := f.awaitCall("echo during restart", func(e callEntry) bool {
		return e.Tool == "echo" && string(e.Arguments) == `{"during":"restart"}`
	})
	if during.PID == first {
		t.Errorf("call during the restart ran on the crashed process %d", first)
	}

	ready := h.awaitEvent(mark, "provider.state ready", func(e event) bool {
		return e.Event == "provider.state" && e.Name == "munim" && e.State == "ready"
	})
	if ready.Capabilities != len(fakeSchemas(t)) {
		t.Errorf("provider.state ready reports %d capabilities, want %d: %s", ready.Capabilities, len(fakeSchemas(t)), ready.raw)
	}
	h.awaitEvent(mark, "capabilities.changed", func(e event) bool { return e.Event == "capabilities.changed" })
	h.awaitReady()
	wantOK(t, h.execute("computer.echo", map[string]any{"after": "restart"}))
	second := f.awaitCall("echo after restart", func(e callEntry) bool {
		return e.Tool == "echo" && string(e.Arguments) == `{"after":"restart"}`
	})
	if second.PID == first {
		t.Errorf("call after restart ran on the crashed process %d", first)
	}
	if !slices.Contains(capabilityNames(t, h), "computer.screenshot") {
		t.Errorf("capabilities missing after restart")
	}
}

// awaitCallPID runs an echo and returns the pid of the server that ran it.
func (f *fake) awaitCallPID(t *testing.T, h *host) int {
	t.Helper()
	wantOK(t, h.execute("computer.echo", map[string]any{"who": "first"}))
	return f.awaitCall("first echo", func(e callEntry) bool { return e.Tool == "echo" }).PID
}

func capabilityNames(t *testing.T, h *host) []string {
	t.Helper()
	r := h.call("capabilities.list", nil)
	wantOK(t, r)
	var l []struct {
		Name string `json:"name"`
	}
	r.field(t, "capabilities", &l)
	var names []string
	for _, c := range l {
		names = append(names, c.Name)
	}
	return names
}

// TestListChanged: a server that adds a tool sends tools/list_changed; the
// host re-discovers, emits capabilities.changed with the new count, and the
// new capability can be described and executed.
func TestListChanged(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	before := len(capabilityNames(t, h))
	mark := h.eventMark()
	wantOK(t, h.execute("computer.add_tool", map[string]any{"name": "zeta"}))
	h.awaitEvent(mark, "capabilities.changed", func(e event) bool {
		return e.Event == "capabilities.changed" && e.Capabilities == before+1
	})
	if !slices.Contains(capabilityNames(t, h), "computer.zeta") {
		t.Fatal("computer.zeta not listed after capabilities.changed")
	}
	d := h.call("capabilities.describe", map[string]any{"name": "computer.zeta"})
	wantOK(t, d)
	r := h.execute("computer.zeta", map[string]any{"value": "z"})
	wantOK(t, r)
	wantError(t, h.execute("computer.zeta", map[string]any{"value": 1}), "INVALID_ARGUMENTS")
}

// TestStdinCloseStopsEverything: when the browser closes the port, the host
// stops its providers, whole process trees included, even with a call in
// flight, and exits within its shutdown grace, leaving no process behind.
func TestStdinCloseStopsEverything(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	g := newFake(t)
	cfg := &Config{Providers: []ProviderConfig{
		f.provider("munim", "computer", "5s", map[string]string{"FAKEMUNIM_GRANDCHILD": "1"}),
		g.provider("second", "second", "5s", map[string]string{"FAKEMUNIM_GRANDCHILD": "1"}),
	}}
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()
	inflight := h.send("execute", executeParams("computer.slow", map[string]any{"ms": 600000, "tag": "inflight"}, ""))
	f.awaitStarted("inflight")
	// host + 2 servers + 2 grandchildren
	if procs := markedProcesses(h.mark); len(procs) < 5 {
		t.Fatalf("expected the host, two servers and two grandchildren, found %d processes %v", len(procs), procs)
	}
	h.closeStdin()
	code, ok := h.waitExit(replyTimeout)
	if !ok {
		t.Fatal("host did not exit after stdin closed")
	}
	// Bounded by the host's own clock: it stops within its shutdown grace
	// (900 ms) or says which part outlived it; a wall-clock bound here
	// would measure the machine's load instead.
	logged, _ := os.ReadFile(filepath.Join(h.dir, "cache", "gnosis", "gnosis-host.log"))
	if !strings.Contains(string(logged), `"message":"stopped"`) {
		t.Errorf("the host's log does not say it stopped:\n%s", logged)
	}
	for _, late := range []string{"requests still running at the end of the shutdown grace", "replies not written by the end of the shutdown grace", "runtime did not close in time"} {
		if strings.Contains(string(logged), late) {
			t.Errorf("the host did not stop within its shutdown grace: %q\n%s", late, logged)
		}
	}
	if code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	if left := markedProcesses(h.mark); len(left) > 0 {
		t.Errorf("processes left behind after the host exited: %v", describeProcs(left))
	}
	// The call in flight was answered CANCELLED before the host went.
	<-h.readDone
	wantError(t, h.await(inflight), "CANCELLED")
}

func describeProcs(pids []int) []string {
	var out []string
	for _, p := range pids {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "cmdline"))
		out = append(out, strconv.Itoa(p)+" "+strings.ReplaceAll(string(b), "\x00", " "))
	}
	return out
}

// TestStdoutPurityWithNoisyProvider: a provider flooding its stderr never
// reaches the host's stdout: every byte there is a valid frame (the client
// checks each one) and the host keeps answering. Each flood is many times
// a pipe's buffer (64 KiB), so the server blocks on its stderr until the
// host has read it; the provider's timeout is far above what a loaded
// machine needs to log it, as the test is about what reaches stdout, not
// how fast.
func TestStdoutPurityWithNoisyProvider(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	cfg := standardConfig(f)
	cfg.Providers[0].Timeout = "600s"
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()
	for i := 0; i < 3; i++ {
		wantOK(t, h.execute("computer.noisy", map[string]any{"lines": 5000}))
		wantOK(t, h.call("health", nil))
	}
	// A burst of requests interleaved with noise.
	var ids []string
	for i := 0; i < 10; i++ {
		ids = append(ids, h.send("execute", executeParams("computer.noisy", map[string]any{"lines": 1000}, "")))
		ids = append(ids, h.send("capabilities.list", nil))
	}
	for _, id := range ids {
		wantOK(t, h.await(id))
	}
	h.closeStdin()
	if _, ok := h.waitExit(replyTimeout); !ok {
		t.Fatal("host did not exit")
	}
	<-h.readDone
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.violations) > 0 {
		t.Fatalf("stdout carried bytes that are not frames: %v", h.violations)
	}
}

// TestBrokenConfig: an unparsable config file, a missing one, and a provider
// whose command does not exist all leave the host serving: health is
// degraded with a reason, the meta-capabilities work, execute of a provider
// capability fails cleanly.
func TestBrokenConfig(t *testing.T) {
	testshort.Parallel(t)
	t.Run("unparsable file", func(t *testing.T) {
		h := startHost(t, hostOptions{rawConfig: `{"providers": [ {"name": "munim", `})
		hr := degradedHealth(t, h)
		if !strings.Contains(hr.Error, "line 1, column 35: unexpected end of JSON input") {
			t.Errorf("health's error does not locate the broken config: %+v", hr)
		}
		metaStillWorks(t, h, "FORBIDDEN")
	})
	t.Run("missing file", func(t *testing.T) {
		h := startHost(t, hostOptions{noConfig: true})
		hr := degradedHealth(t, h)
		if hr.Error == "" {
			t.Errorf("health has no reason for a missing config: %+v", hr)
		}
		metaStillWorks(t, h, "FORBIDDEN")
	})
	t.Run("wrong types", func(t *testing.T) {
		h := startHost(t, hostOptions{rawConfig: `{"providers": {"name": 5}, "policy": "all"}`})
		degradedHealth(t, h)
		metaStillWorks(t, h, "FORBIDDEN")
	})
	t.Run("server exits at once, every time", func(t *testing.T) {
		f := newFake(t)
		cfg := standardConfig(f)
		cfg.Providers = append(cfg.Providers, ProviderConfig{Name: "quitter", Command: "/bin/sh", Args: []string{"-c", "echo giving up >&2; exit 3"}, Prefix: "quitter", Timeout: "5s"})
		h := startHost(t, hostOptions{config: cfg})
		var hr healthReply
		testwait.Until(t, replyTimeout, func() error {
			json.Unmarshal(h.call("health", nil).raw, &hr)
			if providerState(hr, "munim") == "ready" && providerState(hr, "quitter") == "down" {
				return nil
			}
			return fmt.Errorf("want munim ready and quitter down, got %+v", hr)
		})
		if hr.Status != "degraded" {
			t.Errorf("status %q with a provider down", hr.Status)
		}
		for _, p := range hr.Providers {
			if p.Name == "quitter" && !strings.Contains(p.Error, "exited (exit status 3) before answering initialize; stderr: giving up") {
				t.Errorf("quitter's error does not say how it ended in its own words: %+v", p)
			}
		}
		wantError(t, h.execute("quitter.anything", nil), "PROVIDER_UNAVAILABLE")
		wantOK(t, h.execute("computer.echo", map[string]any{"a": 1}))
	})
	t.Run("command does not exist", func(t *testing.T) {
		f := newFake(t)
		cfg := standardConfig(f)
		cfg.Providers = append(cfg.Providers, ProviderConfig{Name: "ghost", Command: "/nonexistent/munim", Prefix: "ghost", Timeout: "5s"})
		h := startHost(t, hostOptions{config: cfg})
		var hr healthReply
		testwait.Until(t, replyTimeout, func() error {
			json.Unmarshal(h.call("health", nil).raw, &hr)
			if providerState(hr, "munim") == "ready" && providerState(hr, "ghost") == "down" {
				return nil
			}
			return fmt.Errorf("want munim ready and ghost down, got %+v", hr)
		})
		if hr.Status != "degraded" {
			t.Errorf("status %q with a provider down", hr.Status)
		}
		for _, p := range hr.Providers {
			if p.Name == "ghost" && p.Error == "" {
				t.Errorf("down provider without error: %+v", p)
			}
		}
		metaStillWorks(t, h, "PROVIDER_NOT_FOUND")
		wantOK(t, h.execute("computer.echo", map[string]any{"a": 1}))
	})
}

func providerState(hr healthReply, name string) string {
	for _, p := range hr.Providers {
		if p.Name == name {
			return p.State
		}
	}
	return ""
}

func degradedHealth(t *testing.T, h *host) healthReply {
	t.Helper()
	r := h.call("health", nil)
	wantOK(t, r)
	var hr healthReply
	json.Unmarshal(r.raw, &hr)
	if hr.Status != "degraded" || hr.Service != "Agent Capability Runtime" {
		t.Errorf("want degraded health, got %s", r.raw)
	}
	return hr
}

// metaStillWorks checks the meta-capabilities, and that a capability of no
// provider fails with unknown: FORBIDDEN when no policy could be read
// (nothing is granted, so it is refused before it is looked up), else
// PROVIDER_NOT_FOUND.
func metaStillWorks(t *testing.T, h *host, unknown string) {
	t.Helper()
	names := capabilityNames(t, h)
	for _, m := range []string{"capabilities.describe", "capabilities.list"} {
		if !slices.Contains(names, m) {
			t.Errorf("%s missing from %v", m, names)
		}
	}
	wantOK(t, h.call("capabilities.describe", map[string]any{"name": "capabilities.list"}))
	wantOK(t, h.execute("capabilities.describe", map[string]any{"name": "capabilities.describe"}))
	wantError(t, h.execute("capabilities.nothing", nil), "CAPABILITY_NOT_FOUND")
	wantError(t, h.execute("nothing.here", nil), unknown)
}

// TestProviderKilledWhileIdleRestarts: a server killed from outside while no
// call is running is noticed, reported (provider.state), restarted and
// re-discovered, and calls work again on the new process.
func TestProviderKilledWhileIdleRestarts(t *testing.T) {
	testshort.Parallel(t)
	h, f := startStandard(t)
	pid := f.awaitCallPID(t, h)
	mark := h.eventMark()
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatalf("kill fakemunim %d: %v", pid, err)
	}
	h.awaitEvent(mark, "provider.state not ready", func(e event) bool {
		return e.Event == "provider.state" && e.Name == "munim" && e.State != "ready"
	})
	h.awaitEvent(mark, "provider.state ready", func(e event) bool {
		return e.Event == "provider.state" && e.Name == "munim" && e.State == "ready"
	})
	wantOK(t, h.execute("computer.echo", map[string]any{"after": "kill"}))
	e := f.awaitCall("echo after kill", func(e callEntry) bool { return string(e.Arguments) == `{"after":"kill"}` })
	if e.PID == pid {
		t.Errorf("echo ran on the killed process")
	}
}

// TestProviderWritingGarbageOnItsStdout: lines on the MCP stream that are
// not JSON-RPC (a banner, a truncated object, a reply to no request, an
// unknown notification) do not break the host: the call is answered and
// the provider keeps working.
func TestProviderWritingGarbageOnItsStdout(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	r := h.execute("computer.garbage", nil)
	t.Logf("garbage call: %s", r.raw)
	if !r.OK && r.Code != "PROVIDER_UNAVAILABLE" && r.Code != "EXECUTION_ERROR" {
		t.Fatalf("garbage call: %s", r.raw)
	}
	h.awaitReady()
	for i := 0; i < 3; i++ {
		wantOK(t, h.execute("computer.echo", map[string]any{"i": i}))
	}
	stillServing(t, h)
}

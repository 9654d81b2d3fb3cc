package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/prereq"
	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/gnosis/gnosis/internal/testwait"
)

// listedProvider is one entry of providers.list.
type listedProvider struct {
	Name         string   `json:"name"`
	Prefix       string   `json:"prefix"`
	Command      string   `json:"command"`
	Args         []string `json:"args"`
	EnvNames     []string `json:"envNames"`
	Timeout      float64  `json:"timeout"`
	StartTimeout float64  `json:"startTimeout"`
	State        string   `json:"state"`
	Capabilities int      `json:"capabilities"`
	Tools        []string `json:"tools"`
	Error        string   `json:"error"`
	Stderr       string   `json:"stderr"`
}

// checkFinding is the reply of providers.check.
type checkFinding struct {
	Status    string   `json:"status"`
	Message   string   `json:"message"`
	Fix       string   `json:"fix"`
	ToolCount int      `json:"toolCount"`
	Tools     []string `json:"tools"`
	Error     string   `json:"error"`
	Stderr    string   `json:"stderr"`
}

// awaitProvider waits for a provider.state event of name in state.
func (h *host) awaitProvider(mark int, name, state string) event {
	h.t.Helper()
	return h.awaitEvent(mark, fmt.Sprintf("provider.state %s %s", name, state), func(e event) bool {
		return e.Event == "provider.state" && e.Name == name && e.State == state
	})
}

// A provider added from the setup page starts at once, its tools appear and
// run; edited, it restarts with the new settings; removed, its process
// stops and its capabilities are gone. The host never restarts, and the
// config file keeps everything else.
func TestProvidersAddEditRemoveLive(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	cfgPath := filepath.Join(h.dir, "config.json")
	g := newFake(t)
	mark2 := h.mark + "-second"
	env := map[string]string{"FAKEMUNIM_LOG": g.log, "FAKEMUNIM_STATE": g.state, "GNOSIS_TEST_MARK": mark2, "SECOND_API_KEY": "sk-second-secret-42"}

	mark := h.eventMark()
	r := h.call("providers.set", map[string]any{"name": "second", "command": fakemunimBin, "prefix": "pc2", "env": env, "timeout": 10})
	wantOK(t, r)
	h.awaitProvider(mark, "second", "ready")
	h.awaitEvent(mark, "capabilities.changed", func(e event) bool { return e.Event == "capabilities.changed" })
	if !slices.Contains(capabilityNames(t, h), "pc2.echo") {
		t.Fatalf("pc2.echo not listed after the provider was added: %v", capabilityNames(t, h))
	}
	wantOK(t, h.execute("pc2.echo", map[string]any{"from": "added"}))
	first := g.awaitCall("echo on the added provider", func(e callEntry) bool { return e.Tool == "echo" }).PID

	var list []listedProvider
	r = h.call("providers.list", nil)
	wantOK(t, r)
	r.field(t, "providers", &list)
	if len(list) != 2 || list[1].Name != "second" || list[1].State != "ready" || list[1].Capabilities == 0 ||
		!slices.Contains(list[1].Tools, "pc2.echo") || !slices.Contains(list[1].EnvNames, "SECOND_API_KEY") {
		t.Errorf("providers.list: %+v", list)
	}
	if bytes.Contains(r.raw, []byte("sk-second-secret-42")) {
		t.Errorf("providers.list sends an env value back: %s", clip(r.raw))
	}

	// Edit: more tools, a new prefix; the server restarts.
	mark = h.eventMark()
	wantOK(t, h.call("providers.set", map[string]any{"name": "second", "command": fakemunimBin, "args": []string{"--tools", "3"},
		"prefix": "pc3", "env": map[string]any{"FAKEMUNIM_LOG": g.log, "FAKEMUNIM_STATE": g.state, "GNOSIS_TEST_MARK": mark2, "SECOND_API_KEY": nil}}))
	h.awaitProvider(mark, "second", "starting")
	h.awaitProvider(mark, "second", "ready")
	names := capabilityNames(t, h)
	if slices.Contains(names, "pc2.echo") || !slices.Contains(names, "pc3.echo") || !slices.Contains(names, "pc3.extra_002") {
		t.Fatalf("capabilities after the edit: %v", names)
	}
	wantError(t, h.execute("pc2.echo", map[string]any{}), "PROVIDER_NOT_FOUND")
	wantOK(t, h.execute("pc3.echo", map[string]any{"from": "edited"}))
	edited := g.awaitCall("echo on the edited provider", func(e callEntry) bool { return string(e.Arguments) == `{"from":"edited"}` })
	if edited.PID == first {
		t.Errorf("the edited provider runs in the same process %d: it was not restarted", first)
	}
	var file struct {
		Providers []ProviderConfig `json:"providers"`
		Policy    json.RawMessage  `json:"policy"`
	}
	b, _ := os.ReadFile(cfgPath)
	json.Unmarshal(b, &file)
	if len(file.Providers) != 2 || file.Providers[1].Env["SECOND_API_KEY"] != "sk-second-secret-42" || len(file.Policy) == 0 {
		t.Errorf("config file after the edit (the stored key kept by null, the policy kept):\n%s", b)
	}

	// Remove.
	mark = h.eventMark()
	wantOK(t, h.call("providers.remove", map[string]any{"name": "second"}))
	h.awaitProvider(mark, "second", "removed")
	if names := capabilityNames(t, h); slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "pc3.") }) {
		t.Errorf("capabilities of the removed provider are still listed: %v", names)
	}
	wantError(t, h.execute("pc3.echo", map[string]any{}), "PROVIDER_NOT_FOUND")
	testwait.Until(t, replyTimeout, func() error {
		if left := markedProcesses(mark2); len(left) > 0 {
			return fmt.Errorf("the removed provider's processes still run: %v", describeProcs(left))
		}
		return nil
	})
	wantOK(t, h.execute("computer.echo", map[string]any{"still": "serving"}))
	if log := h.stderr.String(); strings.Contains(log, "sk-second-secret-42") {
		t.Errorf("an env value reached the host's log")
	}
}

// Bad input is INVALID_ARGUMENTS naming the field; the config file is not
// touched and the host keeps serving.
func TestProvidersRefuseBadInputAndLeaveTheFile(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	cfgPath := filepath.Join(h.dir, "config.json")
	before, _ := os.ReadFile(cfgPath)
	tests := []struct {
		method string
		params map[string]any
		field  string
	}{
		{"providers.set", map[string]any{"name": "x", "command": "fakemunim"}, "command"},
		{"providers.set", map[string]any{"name": "x", "command": filepath.Join(h.dir, "no-such-server")}, "command"},
		{"providers.set", map[string]any{"name": "x", "command": fakemunimBin, "prefix": "computer"}, "prefix"},
		{"providers.set", map[string]any{"name": "x", "command": fakemunimBin, "prefix": "capabilities"}, "prefix"},
		{"providers.set", map[string]any{"name": "x y", "command": fakemunimBin}, "name"},
		{"providers.set", map[string]any{"name": "x", "command": fakemunimBin, "env": map[string]string{"BAD-NAME": "v"}}, "env"},
		{"providers.set", map[string]any{"name": "x", "command": fakemunimBin, "timeout": 0}, "timeout"},
		{"providers.set", map[string]any{"name": "x", "command": fakemunimBin, "startTimeout": "3h"}, "startTimeout"},
		{"providers.set", map[string]any{"name": "x", "command": fakemunimBin, "shell": true}, "shell"},
		{"providers.remove", map[string]any{"name": "munim", "force": true}, "force"},
	}
	for _, tc := range tests {
		r := h.call(tc.method, tc.params)
		wantError(t, r, "INVALID_ARGUMENTS")
		var d map[string]string
		json.Unmarshal(r.Details, &d)
		if d["field"] != tc.field || !strings.HasPrefix(r.Message, tc.field+": ") {
			t.Errorf("%s %v: %s; want the field %q named", tc.method, tc.params, clip(r.raw), tc.field)
		}
	}
	wantError(t, h.call("providers.remove", map[string]any{"name": "nothing"}), "PROVIDER_NOT_FOUND")
	if after, _ := os.ReadFile(cfgPath); !bytes.Equal(before, after) {
		t.Errorf("the config file changed:\n%s", after)
	}
	stillServing(t, h)
}

// providers.check runs a real MCP server and counts its tools; a program
// that is not one answers with its own words on stderr and what to do.
func TestProvidersCheck(t *testing.T) {
	testshort.Parallel(t)
	h, f := startStandard(t)
	computer := 0
	for _, n := range capabilityNames(t, h) {
		if strings.HasPrefix(n, "computer.") {
			computer++
		}
	}
	check := func(params map[string]any) checkFinding {
		t.Helper()
		r := h.call("providers.check", params)
		wantOK(t, r)
		var c checkFinding
		json.Unmarshal(r.raw, &c)
		return c
	}
	got := check(map[string]any{"command": fakemunimBin, "env": map[string]string{"FAKEMUNIM_LOG": f.log, "GNOSIS_TEST_MARK": h.mark}})
	if got.Status != "ok" || got.ToolCount != computer || len(got.Tools) != computer || !slices.Contains(got.Tools, "echo") {
		t.Errorf("fakemunim: %+v; want ok with its %d tools", got, computer)
	}

	node, err := exec.LookPath("node")
	if err != nil {
		prereq.Missing(t, "node", "install Node.js")
	}
	got = check(map[string]any{"command": node, "args": []string{everythingEntry(t), "stdio"}, "startTimeout": 60,
		"env": map[string]string{"GNOSIS_TEST_MARK": h.mark}})
	if got.Status != "ok" || got.ToolCount < 5 || !slices.Contains(got.Tools, "echo") {
		t.Errorf("server-everything: %+v", got)
	}

	if runtime.GOOS != "windows" {
		got = check(map[string]any{"command": "/bin/sh", "args": []string{"-c", "echo 'error: no display found (set DISPLAY)' >&2; exit 3"},
			"env": map[string]string{"GNOSIS_TEST_MARK": h.mark}})
		if got.Status != "failed" || !strings.Contains(got.Stderr, "error: no display found (set DISPLAY)") ||
			!strings.Contains(got.Error, "exit status 3") || !strings.Contains(got.Fix, "run it by hand") {
			t.Errorf("a program that is not an MCP server: %+v", got)
		}
	}
	got = check(map[string]any{"command": filepath.Join(h.dir, "munim")})
	if d := cmp.Diff("not-found", got.Status); d != "" || !strings.Contains(got.Message, "there is no file at") {
		t.Errorf("a path with nothing there: %+v", got)
	}
	stillServing(t, h)
}

// A real Node.js server that fails to load a module: the headline of
// providers.check and health's provider error quote node's own error line,
// not its last line (the "Node.js v…" banner).
func TestAFailingNodeServerIsHeadlinedByItsErrorLine(t *testing.T) {
	testshort.Parallel(t)
	node, err := exec.LookPath("node")
	if err != nil {
		prereq.Missing(t, "node", "install Node.js")
	}
	script := filepath.Join(t.TempDir(), "server.js")
	writeFile(t, script, []byte(`require("./no-such-module-here");`+"\n"))
	const want = "stderr: Error: Cannot find module './no-such-module-here'"

	f := newFake(t)
	cfg := standardConfig(f)
	cfg.Providers = append(cfg.Providers, ProviderConfig{Name: "broken", Command: node, Args: []string{script}, Prefix: "broken", Timeout: "5s"})
	h := startHost(t, hostOptions{config: cfg})
	var hr healthReply
	testwait.Until(t, replyTimeout, func() error {
		json.Unmarshal(h.call("health", nil).raw, &hr)
		if providerState(hr, "broken") == "down" {
			return nil
		}
		return fmt.Errorf("want broken down, got %+v", hr)
	})
	for _, p := range hr.Providers {
		if p.Name == "broken" && (!strings.Contains(p.Error, want) || strings.Contains(p.Error, "Node.js v")) {
			t.Errorf("health's error for the broken server: %q, want it to quote %q", p.Error, want)
		}
	}

	r := h.call("providers.check", map[string]any{"command": node, "args": []string{script}, "env": map[string]string{"GNOSIS_TEST_MARK": h.mark}})
	wantOK(t, r)
	var c checkFinding
	json.Unmarshal(r.raw, &c)
	if c.Status != "failed" || !strings.Contains(c.Message, want) || strings.Contains(c.Message, "Node.js v") || !strings.Contains(c.Stderr, "Node.js v") {
		t.Errorf("providers.check of the broken server: %+v, want its message to quote %q", c, want)
	}
}

package tests

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/testshort"
)

// fakeSchemas reads fakemunim's schema files: tool name -> compact JSON, the
// exact bytes fakemunim puts on the wire (mcp-go compacts raw schemas).
func fakeSchemas(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "tests", "fakemunim", "schemas", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("fakemunim schemas: %v (%d files)", err, len(files))
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = c.Bytes()
	}
	return out
}

// TestDescribeKeepsSchemaBytes: describe returns every tool's input schema
// byte for byte as the server sent it on the wire (asked directly, with
// pagination on to exercise the host's discovery of every page), keywords
// such as $schema, $defs, definitions, oneOf and enum included.
func TestDescribeKeepsSchemaBytes(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	cfg := standardConfig(f)
	cfg.Providers[0].Env["FAKEMUNIM_PAGE_SIZE"] = "4"
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()
	direct := exec.Command(fakemunimBin)
	direct.Env = append(os.Environ(), "FAKEMUNIM_PAGE_SIZE=4")
	wire := wireSchemas(t, direct)
	files := fakeSchemas(t)
	if len(wire) != len(files) {
		t.Fatalf("fakemunim lists %d tools, has %d schema files", len(wire), len(files))
	}
	for _, kw := range []string{`"oneOf"`, `"$defs"`, `"$ref":"#/$defs/point"`} {
		if !bytes.Contains(wire["scroll"], []byte(kw)) {
			t.Fatalf("fakemunim's scroll schema lacks %s: %s", kw, wire["scroll"])
		}
	}
	if !bytes.Contains(wire["drag"], []byte(`"$ref":"#/definitions/point"`)) {
		t.Fatalf("fakemunim's drag schema lacks definitions: %s", wire["drag"])
	}
	for tool, want := range wire {
		t.Run(tool, func(t *testing.T) {
			h.use(t)
			r := h.call("capabilities.describe", map[string]any{"name": "computer." + tool})
			wantOK(t, r)
			var d struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			if err := json.Unmarshal(r.raw, &d); err != nil {
				t.Fatal(err)
			}
			if d.Name != "computer."+tool || d.Description == "" {
				t.Errorf("name %q description %q", d.Name, d.Description)
			}
			if diff := cmp.Diff(string(want), string(d.InputSchema)); diff != "" {
				t.Errorf("inputSchema differs from what fakemunim sent (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDescribeThroughExecute: the meta-capabilities run through execute and
// return the same payload as the methods, without id and ok.
func TestDescribeThroughExecute(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	direct := h.call("capabilities.describe", map[string]any{"name": "computer.scroll"})
	viaExec := h.execute("capabilities.describe", map[string]any{"name": "computer.scroll"})
	wantOK(t, direct)
	wantOK(t, viaExec)
	var d map[string]json.RawMessage
	json.Unmarshal(direct.raw, &d)
	delete(d, "id")
	delete(d, "ok")
	var e map[string]json.RawMessage
	if err := json.Unmarshal(viaExec.Result, &e); err != nil {
		t.Fatalf("result: %v: %s", err, clip(viaExec.raw))
	}
	if diff := cmp.Diff(rawStrings(d), rawStrings(e)); diff != "" {
		t.Errorf("execute capabilities.describe differs from the method (-method +execute):\n%s", diff)
	}

	list := h.call("capabilities.list", nil)
	viaExecList := h.execute("capabilities.list", nil)
	var l, el struct {
		Capabilities []struct{ Name, Description string } `json:"capabilities"`
	}
	json.Unmarshal(list.raw, &l)
	json.Unmarshal(viaExecList.Result, &el)
	if diff := cmp.Diff(l, el); diff != "" {
		t.Errorf("execute capabilities.list differs from the method (-method +execute):\n%s", diff)
	}
}

func rawStrings(m map[string]json.RawMessage) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

// TestCapabilitiesList: sorted by name, every fakemunim tool under its
// prefix, meta-capabilities included, and health counts them all.
func TestCapabilitiesList(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	r := h.call("capabilities.list", nil)
	wantOK(t, r)
	var l []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	r.field(t, "capabilities", &l)
	var names []string
	for _, c := range l {
		names = append(names, c.Name)
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("not sorted by name: %v", names)
	}
	want := []string{"capabilities.describe", "capabilities.list"}
	for tool := range fakeSchemas(t) {
		want = append(want, "computer."+tool)
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("capabilities (-want +got):\n%s", diff)
	}
	var hr healthReply
	json.Unmarshal(h.call("health", nil).raw, &hr)
	want2 := healthReply{OK: true, Status: "ok", Service: "Agent Capability Runtime", Capabilities: len(want),
		Providers: []providerHealth{{Name: "munim", Prefix: "computer", State: "ready", Capabilities: len(want) - 2}}}
	hr.Version = ""
	if diff := cmp.Diff(want2, hr); diff != "" {
		t.Errorf("health (-want +got):\n%s", diff)
	}
	// The first discovery was announced.
	h.awaitEvent(0, "capabilities.changed after the first discovery", func(e event) bool {
		return e.Event == "capabilities.changed" && e.Capabilities == len(want)
	})
	h.awaitEvent(0, "provider.state ready", func(e event) bool {
		return e.Event == "provider.state" && e.Name == "munim" && e.Prefix == "computer" && e.State == "ready"
	})
}

// TestValidationFollowsRealSchemas: arguments are checked against the whole
// schema: $defs references, oneOf branches, draft-07 definitions references,
// array bounds and patterns, numbers exactly as written. Valid calls reach the server, invalid ones don't.
func TestValidationFollowsRealSchemas(t *testing.T) {
	testshort.Parallel(t)
	h, f := startStandard(t)
	tests := []struct {
		name  string
		tool  string
		args  string
		valid bool
	}{
		{"click ok", "click", `{"x":10,"y":20,"button":"right"}`, true},
		{"click button not in enum", "click", `{"x":10,"y":20,"button":"side"}`, false},
		{"click above maximum", "click", `{"x":16384,"y":0}`, false},
		{"click at the maximum written 16383.0", "click", `{"x":16383.0,"y":0}`, true},
		{"click past the maximum by less than float64 tells", "click", `{"x":16383.0000000000000001,"y":0}`, false},
		{"click an integer of 2^64 is above the maximum", "click", `{"x":18446744073709551616,"y":0}`, false},
		{"click 1e309 is a number above the maximum", "click", `{"x":1e309,"y":0}`, false},
		{"click missing y", "click", `{"x":1}`, false},
		{"click extra property", "click", `{"x":1,"y":1,"z":1}`, false},
		{"move_mouse $defs point ok", "move_mouse", `{"to":{"x":5,"y":6}}`, true},
		{"move_mouse $defs point missing y", "move_mouse", `{"to":{"x":5}}`, false},
		{"move_mouse $defs point negative", "move_mouse", `{"to":{"x":-5,"y":6}}`, false},
		{"scroll oneOf by direction", "scroll", `{"direction":"down","amount":3}`, true},
		{"scroll oneOf to point", "scroll", `{"to":{"x":1,"y":2}}`, true},
		{"scroll oneOf neither", "scroll", `{"direction":"down"}`, false},
		{"scroll oneOf both", "scroll", `{"direction":"down","amount":3,"to":{"x":1,"y":2}}`, false},
		{"scroll oneOf bad point", "scroll", `{"to":{"x":"1","y":2}}`, false},
		{"drag definitions ok", "drag", `{"from":{"x":1,"y":2},"to":{"x":3,"y":4}}`, true},
		{"drag definitions violated", "drag", `{"from":{"x":1,"y":2},"to":{"x":-3,"y":4}}`, false},
		{"press_keys ok", "press_keys", `{"keys":["ctrl","c"]}`, true},
		{"press_keys too many", "press_keys", `{"keys":["ctrl","alt","shift","x"]}`, false},
		{"press_keys empty", "press_keys", `{"keys":[]}`, false},
		{"press_keys pattern", "press_keys", `{"keys":["ctrl","rm -rf"]}`, false},
		{"hotkey unique items", "hotkey", `{"keys":["ctrl","ctrl"]}`, false},
		{"type_text ok", "type_text", `{"text":"héllo wörld ✓"}`, true},
		{"type_text empty", "type_text", `{"text":""}`, false},
		{"screenshot region uses $defs", "screenshot", `{"bytes":16,"region":{"origin":{"x":0,"y":0},"width":10,"height":10}}`, true},
		{"screenshot region bad origin", "screenshot", `{"bytes":16,"region":{"origin":{"x":0},"width":10,"height":10}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.use(t)
			before := len(f.calls())
			r := h.execute("computer."+tt.tool, json.RawMessage(tt.args))
			if tt.valid {
				wantOK(t, r)
				calls := f.calls()
				if len(calls) != before+1 || calls[len(calls)-1].Tool != tt.tool {
					t.Fatalf("server did not log the call: %+v", calls[before:])
				}
				if diff := cmp.Diff(compactJSON(t, tt.args), compactJSON(t, string(calls[len(calls)-1].Arguments))); diff != "" {
					t.Errorf("arguments reaching the server (-sent +got):\n%s", diff)
				}
			} else {
				wantError(t, r, "INVALID_ARGUMENTS")
				if n := len(f.calls()); n != before {
					t.Errorf("invalid call reached the server")
				}
			}
		})
	}
}

func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSchemaRefsAreNeverFetched: a tool schema whose $ref points at a URL
// (here a local listener standing in for the network) makes the host neither
// connect to it at discovery nor when describing or executing the tool.
func TestSchemaRefsAreNeverFetched(t *testing.T) {
	testshort.Parallel(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var connections atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			connections.Add(1)
			c.Close()
		}
	}()
	url := "http://" + ln.Addr().String() + "/schema.json"
	f := newFake(t)
	cfg := standardConfig(f)
	cfg.Providers[0].Env["FAKEMUNIM_REMOTE_REF"] = url
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()
	d := h.call("capabilities.describe", map[string]any{"name": "computer.remote_ref"})
	wantOK(t, d)
	if !bytes.Contains(d.raw, []byte(url)) {
		t.Errorf("describe lost the $ref: %s", d.raw)
	}
	// Whatever the host decides about an unresolvable reference, it answers.
	r := h.execute("computer.remote_ref", map[string]any{"target": 1, "other": "x"})
	if !r.OK && r.Code != "INVALID_ARGUMENTS" {
		t.Errorf("execute: %s", r.raw)
	}
	stillServing(t, h)
	if n := connections.Load(); n != 0 {
		t.Errorf("the host connected %d times to the URL a schema refers to", n)
	}
}

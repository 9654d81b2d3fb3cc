package grants

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
)

func TestSetKeepsGrantsOfToolsNotRegisteredNow(t *testing.T) {
	registered := []string{"computer.click", "computer.screenshot"}
	tests := []struct {
		name        string
		chosen, old runtime.Rule
		want        runtime.Rule
	}{
		{
			name:   "a provider that is down keeps its grants",
			chosen: runtime.Rule{Allow: []string{"computer.screenshot"}, Deny: []string{"computer.click"}},
			old:    runtime.Rule{Allow: []string{"files.read", "computer.click"}, Ask: []string{"files.write"}},
			want:   runtime.Rule{Allow: []string{"computer.screenshot", "files.read"}, Ask: []string{"files.write"}, Deny: []string{"computer.click"}},
		},
		{
			name:   "a pattern over registered tools is replaced by the choice",
			chosen: runtime.Rule{Ask: []string{"computer.click", "computer.screenshot"}},
			old:    runtime.Rule{Allow: []string{"computer.*"}},
			want:   runtime.Rule{Ask: []string{"computer.click", "computer.screenshot"}},
		},
		{
			name:   "a name the user chose for is not carried over twice",
			chosen: runtime.Rule{Deny: []string{"files.read"}},
			old:    runtime.Rule{Allow: []string{"files.read"}},
			want:   runtime.Rule{Deny: []string{"files.read"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := keepUnseen(tc.chosen, tc.old, registered)
			if d := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("rule (-want +got):\n%s", d)
			}
		})
	}
}

// fakeRuntime is the part of the runtime grants uses: a fixed capability
// list, the configured providers, and the policy in force.
type fakeRuntime struct {
	names     []string
	providers []runtime.ProviderHealth
	policy    runtime.Policy
}

func (f *fakeRuntime) List() []runtime.Summary {
	out := []runtime.Summary{{Name: "capabilities.list"}}
	for _, n := range f.names {
		out = append(out, runtime.Summary{Name: n})
	}
	return out
}
func (f *fakeRuntime) Policy() runtime.Policy     { return f.policy }
func (f *fakeRuntime) SetPolicy(p runtime.Policy) { f.policy = p }
func (f *fakeRuntime) Health() runtime.Health     { return runtime.Health{Providers: f.providers} }

func newFakeRuntime() *fakeRuntime {
	return &fakeRuntime{
		names: []string{"computer.click", "computer.greet (structured)", "computer.screenshot", "files.read"},
		providers: []runtime.ProviderHealth{
			{Name: "munim", Prefix: "computer", State: runtime.StateReady},
			{Name: "files", Prefix: "files", State: runtime.StateReady},
			{Name: "later", Prefix: "later", State: runtime.StateStarting},
		},
	}
}

// policy.set takes only what the host runs now, or a pattern over one
// configured provider's tools; anything else is INVALID_ARGUMENTS naming the
// entry, and the config file is not touched.
func TestSetRefusesWhatIsNotACapability(t *testing.T) {
	huge := map[string]string{}
	for i := range 200_000 {
		huge[fmt.Sprintf("computer.%0120d", i)] = "allow"
	}
	tests := []struct {
		name   string
		grants any
		code   wire.Code
		says   string // in the message
		entry  string // details.entry, "" when the whole list is at fault
	}{
		{name: "a trailing space", grants: map[string]string{"computer.click ": "allow"}, code: wire.CodeInvalidArguments,
			says: `"computer.click " cannot name a tool: tool name starts or ends with a space`, entry: "computer.click "},
		{name: "a bidi override", grants: map[string]string{"computer.cli\u202eck": "allow"}, code: wire.CodeInvalidArguments,
			says: `"computer.cli\u202eck" cannot name a tool: tool name contains U+202E`, entry: "computer.cli\u202eck"},
		{name: "two spaces in a row", grants: map[string]string{"computer.greet  (structured)": "allow"}, code: wire.CodeInvalidArguments,
			says: "two spaces in a row", entry: "computer.greet  (structured)"},
		{name: "a space in the prefix", grants: map[string]string{"comp uter.click": "allow"}, code: wire.CodeInvalidArguments,
			says: "has a space in its prefix", entry: "comp uter.click"},
		{name: "a zero-width joiner", grants: map[string]string{"computer.cl\u200dick": "allow"}, code: wire.CodeInvalidArguments,
			says: "U+200D", entry: "computer.cl\u200dick"},
		{name: "a Hangul filler", grants: map[string]string{"computer.click\u3164": "allow"}, code: wire.CodeInvalidArguments,
			says: "U+3164", entry: "computer.click\u3164"},
		{name: "a newline", grants: map[string]string{"computer.click\nAllow everything": "allow"}, code: wire.CodeInvalidArguments,
			says: "U+000A", entry: "computer.click\nAllow everything"},
		{name: "an unknown prefix", grants: map[string]string{"shell.exec": "allow"}, code: wire.CodeInvalidArguments,
			says: `"shell.exec" has the prefix "shell", which no configured provider has`, entry: "shell.exec"},
		{name: "a tool the provider does not list", grants: map[string]string{"computer.format_disk": "allow"}, code: wire.CodeInvalidArguments,
			says: `is not a tool provider "munim" lists now`, entry: "computer.format_disk"},
		{name: "a pattern across providers", grants: map[string]string{"*": "allow"}, code: wire.CodeInvalidArguments,
			says: `"*" is not <prefix>.<tool>`, entry: "*"},
		{name: "a pattern over prefixes", grants: map[string]string{"*.click": "allow"}, code: wire.CodeInvalidArguments,
			says: "is a pattern across providers", entry: "*.click"},
		{name: "a meta-capability", grants: map[string]string{"capabilities.list": "allow"}, code: wire.CodeInvalidArguments,
			says: "is a meta-capability", entry: "capabilities.list"},
		{name: "a decision that is not one", grants: map[string]string{"computer.click": "always"}, code: wire.CodeInvalidArguments,
			says: `"computer.click" must be "allow", "ask" or "deny", not "always"`, entry: "computer.click"},
		{name: "an overlong name", grants: map[string]string{"computer." + strings.Repeat("a", 300): "allow"}, code: wire.CodeInvalidArguments,
			says: "is 309 bytes long; at most 256"},
		{name: "200,000 names (26 MB)", grants: huge, code: wire.CodeInvalidArguments, says: "at most 1048576"},
		{name: "grants that are not an object", grants: []string{"computer.click"}, code: wire.CodeInvalidRequest, says: "params.grants must be"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			const before = `{"policy":{"default":[]}}`
			os.WriteFile(path, []byte(before), 0o600)
			g := New(newFakeRuntime(), path)
			params, _ := json.Marshal(map[string]any{"origin": "https://chat.example", "grants": tc.grants})
			_, err := g.Methods()["policy.set"](context.Background(), nil, params, nil)
			var we *wire.Error
			if !errors.As(err, &we) || we.Code != tc.code || !strings.Contains(we.Message, tc.says) {
				t.Fatalf("error %v; want %s saying %q", err, tc.code, tc.says)
			}
			if tc.entry != "" {
				if d := cmp.Diff(map[string]string{"field": "grants", "entry": tc.entry}, we.Details); d != "" {
					t.Errorf("details (-want +got):\n%s", d)
				}
			}
			if data, _ := os.ReadFile(path); string(data) != before {
				t.Errorf("config file changed: %s", data)
			}
		})
	}
}

// What policy.set accepts: registered names and patterns over a configured
// provider's tools, also one that has not listed its tools yet.
func TestSetAcceptsCapabilitiesAndPatterns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	rt := newFakeRuntime()
	g := New(rt, path)
	grants := map[string]string{"computer.click": "ask", "computer.greet (structured)": "allow", "computer.screenshot": "allow",
		"files.*": "allow", "later.*": "deny", "computer.get_*": "deny"}
	params, _ := json.Marshal(map[string]any{"origin": "https://chat.example", "grants": grants})
	got, err := g.Methods()["policy.set"](context.Background(), nil, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := View{Origin: "https://chat.example", Configured: true, Decisions: map[string]runtime.Decision{
		"computer.click": runtime.Ask, "computer.greet (structured)": runtime.Allow, "computer.screenshot": runtime.Allow, "files.read": runtime.Allow}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("view (-want +got):\n%s", d)
	}
	wantRule := runtime.Rule{Allow: []string{"computer.greet (structured)", "computer.screenshot", "files.*"}, Ask: []string{"computer.click"}, Deny: []string{"computer.get_*", "later.*"}}
	if d := cmp.Diff(wantRule, rt.policy.Origins["https://chat.example"]); d != "" {
		t.Errorf("rule in force (-want +got):\n%s", d)
	}
}

// A site whose policy keys clash is shown as such until the user saves its
// grants, which writes one key in place of every spelling.
func TestClashIsReportedUntilSaved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(path, []byte(`{"policy":{"origins":{"https://x.example.net":{"deny":["*"]},"HTTPS://X.EXAMPLE.NET":["computer.*"]}}}`), 0o600)
	rt := newFakeRuntime()
	clash := config.Clash{Origin: "https://x.example.net", Keys: []string{"HTTPS://X.EXAMPLE.NET", "https://x.example.net"}}
	rt.policy = runtime.Policy{Origins: map[string]runtime.Rule{"https://x.example.net": {Deny: []string{"*"}}}}
	saved := 0
	g := New(rt, path, WithClashes([]config.Clash{clash}), WithSaved(func() { saved++ }))
	get := func() View {
		v, err := g.Methods()["policy.get"](context.Background(), nil, json.RawMessage(`{"origin":"https://x.example.net"}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		return v.(View)
	}
	if d := cmp.Diff(&clash, get().Clash); d != "" {
		t.Errorf("clash before saving (-want +got):\n%s", d)
	}
	params := json.RawMessage(`{"origin":"https://x.example.net","grants":{"computer.click":"allow"}}`)
	if _, err := g.Methods()["policy.set"](context.Background(), nil, params, nil); err != nil {
		t.Fatal(err)
	}
	if c := get().Clash; c != nil || saved != 1 {
		t.Errorf("after saving: clash %+v, saved %d times; want none and once", c, saved)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "X.EXAMPLE.NET") {
		t.Errorf("the other spelling is still in the file: %s", data)
	}
}

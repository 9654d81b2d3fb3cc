package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/gnosis/gnosis/internal/testwait"
)

const chatOrigin = "https://chat.example"

// forbiddenReason returns details.reason of a FORBIDDEN reply.
func forbiddenReason(t *testing.T, r reply) string {
	t.Helper()
	wantError(t, r, "FORBIDDEN")
	var d struct {
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(r.Details, &d); err != nil {
		t.Fatalf("details of %s: %v", clip(r.raw), err)
	}
	return d.Reason
}

// A host installed with no policy grants nothing: not to a page, not to a
// call without an origin, whatever the page asks.
func TestNoPolicyGrantsNothing(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	p, _ := json.Marshal(f.provider("munim", "computer", "5s", nil))
	h := startHost(t, hostOptions{rawConfig: `{"providers":[` + string(p) + `]}`})
	h.awaitReady()
	for _, origin := range []string{chatOrigin, ""} {
		r := h.call("execute", executeParams("computer.echo", map[string]any{"a": 1}, origin))
		if got := forbiddenReason(t, r); got != "not-granted" {
			t.Errorf("origin %q: reason %q, want not-granted", origin, got)
		}
	}
	// A null origin is no origin: the default, never more.
	r := h.call("execute", map[string]any{"capability": "computer.echo", "arguments": map[string]any{}, "origin": nil})
	wantError(t, r, "FORBIDDEN")
	wantOK(t, h.call("execute", executeParams("capabilities.list", nil, chatOrigin)))
	if calls := f.calls(); len(calls) != 0 {
		t.Errorf("the server was called: %+v", calls)
	}
}

// Policy keys are origins however they are written; requests too.
func TestPolicyKeysAreNormalised(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	cfg := &Config{
		Providers: []ProviderConfig{f.provider("munim", "computer", "5s", nil)},
		Policy:    &Policy{Default: []string{}, Origins: map[string]any{"HTTPS://Chat.Example:443/": []string{"computer.echo"}}},
	}
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()
	for _, origin := range []string{chatOrigin, "https://CHAT.example/", "https://chat.example:443"} {
		wantOK(t, h.call("execute", executeParams("computer.echo", map[string]any{}, origin)))
	}
	wantError(t, h.call("execute", executeParams("computer.echo", map[string]any{}, "https://chat.example:8443")), "FORBIDDEN")
}

// policy.set stores the user's choice in the config file, keeps the rest of
// the file, and takes effect at once; policy.get reports it.
func TestPolicySetPersistsAndApplies(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	cfg := &Config{
		Providers: []ProviderConfig{f.provider("munim", "computer", "5s", nil)},
		Policy:    &Policy{Default: []string{}},
		Log:       map[string]any{"level": "info"},
	}
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()

	var view struct {
		Origin     string            `json:"origin"`
		Configured bool              `json:"configured"`
		Decisions  map[string]string `json:"decisions"`
	}
	r := h.call("policy.get", map[string]any{"origin": "https://Chat.Example/"})
	wantOK(t, r)
	r.field(t, "configured", &view.Configured)
	r.field(t, "decisions", &view.Decisions)
	if view.Configured || view.Decisions["computer.echo"] != "deny" {
		t.Fatalf("before: %s", clip(r.raw))
	}

	r = h.call("policy.set", map[string]any{"origin": "https://Chat.Example/", "grants": map[string]string{
		"computer.echo": "allow", "computer.click": "ask", "computer.type_text": "deny"}})
	wantOK(t, r)
	r.field(t, "origin", &view.Origin)
	r.field(t, "configured", &view.Configured)
	r.field(t, "decisions", &view.Decisions)
	if view.Origin != chatOrigin || !view.Configured || view.Decisions["computer.echo"] != "allow" ||
		view.Decisions["computer.click"] != "ask" || view.Decisions["computer.screenshot"] != "deny" {
		t.Fatalf("after: %s", clip(r.raw))
	}
	wantOK(t, h.call("execute", executeParams("computer.echo", map[string]any{}, chatOrigin)))
	if got := forbiddenReason(t, h.call("execute", executeParams("computer.type_text", map[string]any{"text": "x"}, chatOrigin))); got != "not-granted" {
		t.Errorf("type_text: reason %q", got)
	}

	data, err := os.ReadFile(filepath.Join(h.dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Providers []json.RawMessage `json:"providers"`
		Log       map[string]any    `json:"log"`
		Policy    struct {
			Default []string                       `json:"default"`
			Origins map[string]map[string][]string `json:"origins"`
		} `json:"policy"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("config after policy.set: %v\n%s", err, data)
	}
	want := map[string]map[string][]string{chatOrigin: {"allow": {"computer.echo"}, "ask": {"computer.click"}, "deny": {"computer.type_text"}}}
	if diff := cmp.Diff(want, file.Policy.Origins); diff != "" {
		t.Errorf("policy.origins in the file (-want +got):\n%s", diff)
	}
	if len(file.Providers) != 1 || file.Log["level"] != "info" || file.Policy.Default == nil {
		t.Errorf("the rest of the config was not kept:\n%s", data)
	}

	for _, bad := range []map[string]any{
		{"origin": "chat.example", "grants": map[string]string{}},
		{"origin": chatOrigin, "grants": []string{"computer.echo"}},
		{"origin": chatOrigin},
	} {
		wantError(t, h.call("policy.set", bad), "INVALID_REQUEST")
	}
}

// policy.set takes only capabilities the host runs now, or a pattern over
// one configured provider's tools. Whatever else a caller sends (names with
// a trailing space or a bidi override, an unknown prefix, a word that is
// no decision, 200,000 names in 26 MB) is INVALID_ARGUMENTS naming the
// entry, the file is not touched and the host keeps serving.
func TestPolicySetRefusesWhatIsNotACapability(t *testing.T) {
	h, _ := startStandard(t)
	cfgPath := filepath.Join(h.dir, "config.json")
	before, _ := os.ReadFile(cfgPath)
	huge := make(map[string]string, 200_000)
	for i := range 200_000 {
		huge[fmt.Sprintf("computer.%0120d", i)] = "allow"
	}
	tests := []struct {
		grants any
		says   string
	}{
		{map[string]string{"computer.echo ": "allow"}, `grant "computer.echo " cannot name a tool: tool name starts or ends with a space`},
		{map[string]string{"computer.ec\u202eho": "allow"}, `grant "computer.ec\u202eho" cannot name a tool: tool name contains U+202E`},
		{map[string]string{"shell.exec": "allow"}, `grant "shell.exec" has the prefix "shell", which no configured provider has`},
		{map[string]string{"computer.format_disk": "allow"}, `is not a tool provider "munim" lists now`},
		{map[string]string{"computer.echo": "always"}, `must be "allow", "ask" or "deny", not "always"`},
		{huge, "at most 1048576"},
	}
	for _, tc := range tests {
		r := h.call("policy.set", map[string]any{"origin": chatOrigin, "grants": tc.grants})
		wantError(t, r, "INVALID_ARGUMENTS")
		if !strings.Contains(r.Message, tc.says) {
			t.Errorf("message %q, want it to say %q", r.Message, tc.says)
		}
	}
	if after, _ := os.ReadFile(cfgPath); !bytes.Equal(before, after) {
		t.Errorf("the config file changed:\n%s", after)
	}
	r := h.call("policy.set", map[string]any{"origin": chatOrigin, "grants": map[string]string{"computer.*": "ask", "computer.echo": "deny"}})
	wantOK(t, r)
	var decisions map[string]string
	r.field(t, "decisions", &decisions)
	if decisions["computer.echo"] != "deny" || decisions["computer.click"] != "ask" {
		t.Errorf("a pattern over the provider's tools: %s", clip(r.raw))
	}
	stillServing(t, h)
}

// Two spellings of one origin in the config file: the origin runs nothing
// whichever key says what, health and policy.get name the clashing keys,
// and the user's save on the options page writes one key in their place.
func TestClashingPolicyKeysFailClosed(t *testing.T) {
	f := newFake(t)
	const site = "https://x.example.net"
	cfg := &Config{
		Providers: []ProviderConfig{f.provider("munim", "computer", "5s", nil)},
		Policy: &Policy{Default: []string{}, Origins: map[string]any{
			site:                    map[string][]string{"deny": {"*"}},
			"HTTPS://X.EXAMPLE.NET": []string{"computer.*"},
		}},
	}
	h := startHost(t, hostOptions{config: cfg})
	testwait.Until(t, replyTimeout, func() error {
		if p := h.call("health", nil); !bytes.Contains(p.raw, []byte(`"state":"ready"`)) {
			return fmt.Errorf("provider not ready: %s", clip(p.raw))
		}
		return nil
	})
	if got := forbiddenReason(t, h.call("execute", executeParams("computer.echo", map[string]any{}, site))); got != "not-granted" {
		t.Errorf("echo from %s: reason %q, want not-granted", site, got)
	}
	var hr healthReply
	json.Unmarshal(h.call("health", nil).raw, &hr)
	wantKeys := `keys "HTTPS://X.EXAMPLE.NET" and "https://x.example.net" are one origin, https://x.example.net`
	if hr.Status != "degraded" || !strings.Contains(hr.Error, wantKeys) {
		t.Errorf("health %+v, want degraded naming the keys", hr)
	}
	var clash struct {
		Origin string   `json:"origin"`
		Keys   []string `json:"keys"`
	}
	r := h.call("policy.get", map[string]any{"origin": site})
	wantOK(t, r)
	r.field(t, "clash", &clash)
	if clash.Origin != site || !slices.Equal(clash.Keys, []string{"HTTPS://X.EXAMPLE.NET", site}) {
		t.Errorf("policy.get clash: %s", clip(r.raw))
	}

	r = h.call("policy.set", map[string]any{"origin": site, "grants": map[string]string{"computer.echo": "allow"}})
	wantOK(t, r)
	if bytes.Contains(r.raw, []byte(`"clash"`)) {
		t.Errorf("the clash is still reported after the save: %s", clip(r.raw))
	}
	wantOK(t, h.call("execute", executeParams("computer.echo", map[string]any{}, site)))
	hr = healthReply{}
	json.Unmarshal(h.call("health", nil).raw, &hr)
	if hr.Status != "ok" || hr.Error != "" {
		t.Errorf("health after the save: %+v", hr)
	}
	if data, _ := os.ReadFile(filepath.Join(h.dir, "config.json")); bytes.Contains(data, []byte("X.EXAMPLE.NET")) {
		t.Errorf("the other spelling is still in the file:\n%s", data)
	}
}

// A capability marked "ask" waits for the user: the host sends the exact
// call as an approval event, and only approve with allow runs it.
func TestAskWaitsForTheUsersAnswer(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	cfg := &Config{
		Providers: []ProviderConfig{f.provider("munim", "computer", "5s", nil)},
		Policy: &Policy{Default: []string{}, AskTimeout: "1s", Origins: map[string]any{
			chatOrigin: map[string][]string{"ask": {"computer.echo"}},
		}},
	}
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()

	ask := func(args map[string]any) (string, event) {
		t.Helper()
		mark := h.eventMark()
		id := h.send("execute", executeParams("computer.echo", args, chatOrigin))
		ev := h.awaitEvent(mark, "approval", func(e event) bool { return e.Event == "approval" && string(e.ID) == id })
		return id, ev
	}

	id, ev := ask(map[string]any{"text": "rm -rf ~"})
	want := event{ID: json.RawMessage(id), Event: "approval", Origin: chatOrigin, Capability: "computer.echo",
		Arguments: json.RawMessage(`{"text":"rm -rf ~"}`), Title: "Echo", TimeoutMs: 1000}
	ev.raw = nil
	if diff := cmp.Diff(want, ev, cmp.AllowUnexported(event{})); diff != "" {
		t.Errorf("approval event (-want +got):\n%s", diff)
	}
	if h.has(id) || len(f.calls()) != 0 {
		t.Fatal("the call ran before the user answered")
	}
	r := h.call("approve", map[string]any{"id": json.RawMessage(id), "allow": true})
	wantOK(t, r)
	wantOK(t, h.await(id))
	if n := len(f.calls()); n != 1 {
		t.Fatalf("server calls after allow: %d, want 1", n)
	}

	id, _ = ask(map[string]any{"n": 2})
	wantOK(t, h.call("approve", map[string]any{"id": json.RawMessage(id), "allow": false}))
	if got := forbiddenReason(t, h.await(id)); got != "denied" {
		t.Errorf("deny: reason %q", got)
	}

	id, _ = ask(map[string]any{"n": 3})
	if got := forbiddenReason(t, h.await(id)); got != "timeout" {
		t.Errorf("no answer: reason %q", got)
	}
	// An answer after the timeout finds nothing and runs nothing.
	var found bool
	r = h.call("approve", map[string]any{"id": json.RawMessage(id), "allow": true})
	r.field(t, "found", &found)
	if found {
		t.Error("approve after the timeout found a pending call")
	}

	id, _ = ask(map[string]any{"n": 4})
	wantOK(t, h.call("cancel", map[string]any{"id": json.RawMessage(id)}))
	wantError(t, h.await(id), "CANCELLED")

	if n := len(f.calls()); n != 1 {
		t.Errorf("server calls in all: %d, want 1 (only the allowed one)", n)
	}
}

// capabilities.list carries each tool's title and hints as its server sent them.
func TestListCarriesTitlesAndHints(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	r := h.call("capabilities.list", nil)
	var list []struct {
		Name        string          `json:"name"`
		Title       string          `json:"title"`
		Annotations json.RawMessage `json:"annotations"`
	}
	r.field(t, "capabilities", &list)
	got := map[string]string{}
	for _, c := range list {
		if c.Name == "computer.screenshot" || c.Name == "computer.click" {
			got[c.Name] = c.Title + " " + string(c.Annotations)
		}
	}
	want := map[string]string{
		"computer.screenshot": `Take a screenshot {"title":"Take a screenshot","readOnlyHint":true,"openWorldHint":false}`,
		"computer.click":      `Click {"title":"Click","readOnlyHint":false,"destructiveHint":false}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("titles and hints (-want +got):\n%s", diff)
	}
}

package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/gnosis/gnosis/internal/testwait"
)

// schemaTool is one tool of fakemunim's FAKEMUNIM_SCHEMAS file.
type schemaTool struct {
	InputSchema       json.RawMessage `json:"inputSchema"`
	OutputSchema      json.RawMessage `json:"outputSchema,omitempty"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
}

// schemaHost starts the host with the standard fakemunim (prefix
// "computer") and a second one (prefix "s", provider "schemas") that
// serves tools, whose schemas the test chooses, and answers a call with
// the size of its arguments. assert turns the second one's assertFormats
// on.
func schemaHost(t *testing.T, tools map[string]schemaTool, assert bool) (*host, *fake) {
	t.Helper()
	f := newFake(t)
	g := newFake(t)
	b, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "schemas.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	second := g.provider("schemas", "s", "30s", map[string]string{"FAKEMUNIM_SCHEMAS": file})
	second.AssertFormats = assert
	cfg := &Config{Providers: []ProviderConfig{f.provider("munim", "computer", "30s", nil), second}}
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()
	return h, g
}

// exponentialSchema is the audit's schema: depth levels, each an allOf of
// two "$ref"s to the next, so a value is checked 2^depth times; the last
// level takes any object, with a "pad" string to make the call as large
// as a test wants.
func exponentialSchema(depth int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","$ref":"#/$defs/l0","$defs":{`)
	for i := range depth {
		fmt.Fprintf(&b, `"l%d":{"allOf":[{"$ref":"#/$defs/l%d"},{"$ref":"#/$defs/l%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"l%d":{"type":"object","properties":{"pad":{"type":"string"}}}}}`, depth)
	return json.RawMessage(b.String())
}

// Issue 39, item 1: a call whose validation would take minutes (an
// exponential schema) holds no other request: health, another provider's
// call and a describe are answered while it validates, whether the call is
// small enough for the host's request reader to start it (60 KB: it then
// ends in TOO_COSTLY once its budget is spent) or not (2 MB, which buys
// half a billion steps: a cancel ends it).
func TestACallThatValidatesHoldsNoOtherRequest(t *testing.T) {
	testshort.Parallel(t)
	h, g := schemaHost(t, map[string]schemaTool{"exp": {InputSchema: exponentialSchema(40)}}, false)
	others := func(long string) {
		t.Helper()
		wantOK(t, h.call("health", nil))
		wantOK(t, h.execute("computer.echo", map[string]any{"text": "meanwhile"}))
		wantOK(t, h.call("capabilities.describe", map[string]any{"name": "s.exp"}))
		if h.has(long) {
			t.Fatalf("the validating call was answered before the others: %s", clip(h.await(long).raw))
		}
	}
	small := h.send("execute", executeParams("s.exp", map[string]any{"pad": strings.Repeat("x", 60_000)}, ""))
	others(small)
	wantError(t, h.await(small), "TOO_COSTLY")

	large := h.send("execute", executeParams("s.exp", map[string]any{"pad": strings.Repeat("x", 2<<20)}, ""))
	others(large)
	wantOK(t, h.call("cancel", map[string]any{"id": mustAtoi(t, large)}))
	wantError(t, h.await(large), "CANCELLED")
	for _, e := range g.calls() {
		t.Errorf("the server was called: %+v", e)
	}
}

// Issue 39, item 1: the host exits when its input closes, while a call
// validates, within its shutdown grace: the validation stops at the
// host's end like a cancelled one.
func TestTheHostExitsWhenItsInputClosesWhileACallValidates(t *testing.T) {
	testshort.Parallel(t)
	h, _ := schemaHost(t, map[string]schemaTool{"exp": {InputSchema: exponentialSchema(40)}}, false)
	long := h.send("execute", executeParams("s.exp", map[string]any{"pad": strings.Repeat("x", 2<<20)}, ""))
	wantOK(t, h.call("health", nil)) // the reader has gone past the call
	h.closeStdin()
	code, ok := h.waitExit(replyTimeout)
	if !ok {
		t.Fatal("the host did not exit after its input closed")
	}
	if code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	logged, _ := os.ReadFile(filepath.Join(h.dir, "cache", "gnosis", "gnosis-host.log"))
	for _, late := range []string{"requests still running at the end of the shutdown grace", "replies not written by the end of the shutdown grace"} {
		if strings.Contains(string(logged), late) {
			t.Errorf("the host did not stop within its shutdown grace: %q", late)
		}
	}
	<-h.readDone
	wantError(t, h.await(long), "CANCELLED")
}

// Issue 39, item 1: each call has one budget, counted in steps, for all
// its validation. The 1,000 items against ^(a+)+$ (no lookaround:
// the linear engine) are decided, each item refused; against a pattern
// that must backtrack, and against an exponential schema, the call ends
// in TOO_COSTLY, with the same details every time, and the server is not
// called.
func TestEachCallHasOneBudgetCountedInSteps(t *testing.T) {
	testshort.Parallel(t)
	items := func(p string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"string","pattern":` + jsonString(p) + `}}}}`)
	}
	h, g := schemaHost(t, map[string]schemaTool{
		"linear":    {InputSchema: items(`^(a+)+$`)},
		"backtrack": {InputSchema: items(`^(?=a)(a+)+$`)},
		"exp":       {InputSchema: exponentialSchema(32)},
	}, false)
	var values []string
	for range 1000 {
		values = append(values, strings.Repeat("a", 40)+"!")
	}
	r := h.execute("s.linear", map[string]any{"items": values})
	wantError(t, r, "INVALID_ARGUMENTS")
	var d struct {
		Errors []struct{ Path, Keyword, KeywordLocation, Message string }
	}
	// Every item is decided; the first 100 violations are listed, and how
	// many more there are.
	if err := json.Unmarshal(r.Details, &d); err != nil || len(d.Errors) != 101 || d.Errors[99].Path != "/items/99" ||
		d.Errors[0].Keyword != "pattern" || d.Errors[0].KeywordLocation != "/properties/items/items/pattern" ||
		!strings.HasSuffix(r.Message, "(and 999 more)") || d.Errors[100].Message != "900 more violations are not listed (only the first 100 found are)" {
		t.Errorf("linear: %d violations (%v): %s: %.300s", len(d.Errors), err, r.Message, r.Details)
	}
	var first json.RawMessage
	for range 2 {
		r := h.execute("s.backtrack", map[string]any{"items": values})
		wantError(t, r, "TOO_COSTLY")
		var cd struct {
			Reason, Path, Keyword string
			Steps                 int64
		}
		if err := json.Unmarshal(r.Details, &cd); err != nil || cd.Reason != "validation-budget" || cd.Path != "/items/0" || cd.Keyword != "pattern" || cd.Steps < 4_000_000 {
			t.Errorf("backtrack: details %s", r.Details)
		}
		if first != nil && string(first) != string(r.Details) {
			t.Errorf("the same call got other details: %s, then %s", first, r.Details)
		}
		first = r.Details
	}
	r = h.execute("s.exp", map[string]any{})
	wantError(t, r, "TOO_COSTLY")
	if !strings.Contains(r.Message, "s.exp: checking its arguments against its inputSchema costs more than the host gives a value of 2 bytes") {
		t.Errorf("exp: message %q", r.Message)
	}
	for _, e := range g.calls() {
		t.Errorf("the server was called: %+v", e.Tool)
	}
	stillServing(t, h)
}

// Issue 39, item 2: a request the host cannot decode is answered under
// its own id, with what is wrong and where; the host keeps serving.
func TestARequestThatCannotBeDecodedIsAnsweredUnderItsID(t *testing.T) {
	testshort.Parallel(t)
	h := startHost(t, hostOptions{})
	deep := `{"id":"deep-1","method":"execute","params":{"capability":"computer.echo","arguments":{"a":` +
		strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001) + `}}}`
	h.writeFrame([]byte(deep))
	r := h.await(`"deep-1"`)
	wantError(t, r, "INVALID_REQUEST")
	if want := fmt.Sprintf("request is nested deeper than 10000 levels (at byte %d)", strings.Index(deep, "[")+9_997); r.Message != want {
		t.Errorf("message %q, want %q", r.Message, want)
	}
	bad := "{\"id\":77,\"method\":\"execute\",\"params\":{\"capability\":\"computer.echo\",\"arguments\":{\"s\":\"\xff\"}}}"
	h.writeFrame([]byte(bad))
	r = h.await(`77`)
	wantError(t, r, "INVALID_REQUEST")
	if want := fmt.Sprintf("request is not valid UTF-8 (byte %d is not)", strings.IndexByte(bad, 0xff)); r.Message != want {
		t.Errorf("message %q, want %q", r.Message, want)
	}
	stillServing(t, h)
}

// Issue 39, item 4: the verdicts the specification gives, on the host's
// own path (tools of a server whose config asserts formats, and of one
// that does not).
func TestTheHostsVerdictsAreTheSpecifications(t *testing.T) {
	testshort.Parallel(t)
	d7 := json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"ip":{"type":"string","format":"ipv4"}}}`)
	tools := map[string]schemaTool{
		"email":     {InputSchema: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string","format":"email"}}}`)},
		"pointer":   {InputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"type":"string","format":"relative-json-pointer"}}}`)},
		"draft7":    {InputSchema: d7},
		"recursive": {InputSchema: json.RawMessage(`{"type":"object","properties":{"c":{"$ref":"#"}}}`)},
	}
	nest := func(n int) map[string]any {
		v := map[string]any{}
		for range n {
			v = map[string]any{"c": v}
		}
		return v
	}
	for _, assert := range []bool{false, true} {
		t.Run(fmt.Sprintf("assertFormats %v", assert), func(t *testing.T) {
			testshort.Parallel(t)
			h, g := schemaHost(t, tools, assert)
			tests := []struct {
				tool string
				args any
				ok   bool
			}{
				{"s.email", map[string]any{"to": "a@[ipv6:::1]"}, true},
				{"s.email", map[string]any{"to": "a@[01.2.3.4]"}, true},
				{"s.email", map[string]any{"to": "not an address"}, !assert}, // 2020-12: an annotation unless asserted
				{"s.pointer", map[string]any{"p": "0-0"}, true},
				{"s.pointer", map[string]any{"p": "0-01"}, !assert},
				{"s.draft7", map[string]any{"ip": "1.2.3"}, false}, // draft-07 asserts
				{"s.recursive", nest(2001), true},
			}
			for _, tt := range tests {
				r := h.execute(tt.tool, tt.args)
				if r.OK != tt.ok {
					t.Errorf("%s %.80v: ok = %v, want %v: %s", tt.tool, tt.args, r.OK, tt.ok, clip(r.raw))
				}
			}
			// Nested past what the host checks: the arguments are blamed
			// (INVALID_ARGUMENTS), not the schema.
			r := h.execute("s.recursive", nest(6000))
			wantError(t, r, "INVALID_ARGUMENTS")
			if !strings.Contains(r.Message, "nested too deep here to be checked") {
				t.Errorf("deep arguments: %s", r.Message)
			}
			var d struct {
				Checks struct{ FormatsAsserted, FormatsNotChecked []string }
			}
			if err := json.Unmarshal(h.call("capabilities.describe", map[string]any{"name": "s.email"}).raw, &d); err != nil {
				t.Fatal(err)
			}
			want := struct{ FormatsAsserted, FormatsNotChecked []string }{nil, []string{"email"}}
			if assert {
				want = struct{ FormatsAsserted, FormatsNotChecked []string }{[]string{"email"}, nil}
			}
			if diff := cmp.Diff(want, d.Checks); diff != "" {
				t.Errorf("describe's checks (-want +got):\n%s", diff)
			}
			if n := len(g.calls()); n == 0 {
				t.Error("no valid call reached the server")
			}
		})
	}
}

// Issue 39, item 4: a pattern that is not ECMA-262, a reference that lands
// on nothing and a 2020-12 "$id" with a fragment make the tool
// unavailable, with the reason in the list, in describe and in the call's
// error; the server is never called.
func TestSchemasTheSpecificationCallsInvalidMakeTheToolUnavailable(t *testing.T) {
	testshort.Parallel(t)
	tools := map[string]schemaTool{
		"dotnet":   {InputSchema: json.RawMessage(`{"type":"object","properties":{"s":{"pattern":"(?i)^abc$"}}}`)},
		"annexb":   {InputSchema: json.RawMessage(`{"type":"object","properties":{"s":{"pattern":"\\A\\d+\\z"}}}`)},
		"typo":     {InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"$ref":"#/$defs/Nmber"}},"$defs":{"Number":{"type":"number"}}}`)},
		"anchor":   {InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"$ref":"#nope"}}}`)},
		"idanchor": {InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"$ref":"#foo"}},"$defs":{"a":{"$id":"#foo","type":"number"}}}`)},
	}
	want := map[string]string{
		"s.dotnet":   `its inputSchema cannot be used: /properties/s/pattern: "(?i)^abc$" is not an ECMA-262 regular expression (with the u flag, as JSON Schema asks): "(?" must start`,
		"s.annexb":   `its inputSchema cannot be used: /properties/s/pattern: "\\A\\d+\\z" is not an ECMA-262 regular expression (with the u flag, as JSON Schema asks): \A is not an escape with the u flag`,
		"s.typo":     `its inputSchema cannot be used: /properties/n/$ref: reference "#/$defs/Nmber": there is nothing at /$defs/Nmber`,
		"s.anchor":   `its inputSchema cannot be used: /properties/n/$ref: reference "#nope": the schema defines no anchor "nope"`,
		"s.idanchor": `its inputSchema cannot be used: /$defs/a: $id "#foo" has a fragment`,
	}
	h, g := schemaHost(t, tools, false)
	testwait.Until(t, replyTimeout, func() error {
		entries := listEntries(t, h)
		for name, prefix := range want {
			if !strings.HasPrefix(entries[name].Unavailable, prefix) {
				return fmt.Errorf("%s unavailable = %q, want %q…", name, entries[name].Unavailable, prefix)
			}
		}
		return nil
	})
	for name, prefix := range want {
		var d struct{ Unavailable string }
		if r := h.call("capabilities.describe", map[string]any{"name": name}); json.Unmarshal(r.raw, &d) != nil || !strings.HasPrefix(d.Unavailable, prefix) {
			t.Errorf("describe %s: %q", name, d.Unavailable)
		}
		r := h.execute(name, map[string]any{"s": "x", "n": 1})
		wantError(t, r, "EXECUTION_ERROR")
		if string(r.Details) != `{"reason":"invalid-schema"}` {
			t.Errorf("%s: details %s", name, r.Details)
		}
	}
	for _, e := range g.calls() {
		t.Errorf("the server was called: %s", e.Tool)
	}
}

// Issue 39, item 5: a failed anyOf or oneOf gives the errors of its
// closest branch, each with its keyword location, so a model can repair
// the call.
func TestAFailedOneOfGivesTheClosestBranchsErrors(t *testing.T) {
	testshort.Parallel(t)
	schema := json.RawMessage(`{"type":"object","properties":{"action":{"oneOf":[{"$ref":"#/$defs/click"},{"$ref":"#/$defs/type"}]}},"required":["action"],` +
		`"$defs":{"click":{"type":"object","properties":{"kind":{"const":"click"},"x":{"type":"integer"},"y":{"type":"integer"}},"required":["kind","x","y"]},` +
		`"type":{"type":"object","properties":{"kind":{"const":"type"},"text":{"type":"string"}},"required":["kind","text"]}}}`)
	h, _ := schemaHost(t, map[string]schemaTool{"act": {InputSchema: schema}}, false)
	r := h.execute("s.act", map[string]any{"action": map[string]any{"kind": "click", "x": "10"}})
	wantError(t, r, "INVALID_ARGUMENTS")
	var d struct {
		Errors []struct{ Path, Keyword, Message, KeywordLocation string }
	}
	if err := json.Unmarshal(r.Details, &d); err != nil {
		t.Fatal(err)
	}
	type short struct{ Path, Keyword, KeywordLocation string }
	var got []short
	for _, e := range d.Errors {
		got = append(got, short{e.Path, e.Keyword, e.KeywordLocation})
	}
	want := []short{
		{"/action", "oneOf", "/properties/action/oneOf"},
		{"/action/x", "type", "/properties/action/oneOf/0/$ref/properties/x/type"},
		{"/action/y", "required", "/properties/action/oneOf/0/$ref/required"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if !strings.Contains(d.Errors[0].Message, `the closest is #0, whose errors follow (under /properties/action/oneOf/0); the others fail as #1 at /action/kind: must be "type"`) {
		t.Errorf("message %q", d.Errors[0].Message)
	}
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Issue 39, item 1: a result is checked against its outputSchema apart
// from the goroutine that reads its server, with the budget of its size:
// another call of the same server is answered while an exponential
// outputSchema is being checked, and the call then ends TOO_COSTLY with
// the tool's result in its details.
func TestAResultIsCheckedApartFromItsServersOtherReplies(t *testing.T) {
	testshort.Parallel(t)
	structured, _ := json.Marshal(map[string]any{"pad": strings.Repeat("x", 60_000)})
	h, _ := schemaHost(t, map[string]schemaTool{
		"slowout": {InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: exponentialSchema(40), StructuredContent: structured},
		"quick":   {InputSchema: json.RawMessage(`{"type":"object"}`)},
	}, false)
	slow := h.send("execute", executeParams("s.slowout", map[string]any{}, ""))
	// The slow call's result is being checked once the server has
	// answered it; calls of the same server sent now are answered first.
	for range 3 {
		wantOK(t, h.execute("s.quick", map[string]any{}))
	}
	if h.has(slow) {
		t.Fatalf("the call whose result is checked was answered before the others: %s", clip(h.await(slow).raw))
	}
	r := h.await(slow)
	wantError(t, r, "TOO_COSTLY")
	var d struct {
		Reason string
		Result json.RawMessage
	}
	if err := json.Unmarshal(r.Details, &d); err != nil || d.Reason != "validation-budget" || !strings.Contains(string(d.Result), `"structuredContent"`) {
		t.Errorf("details: %.300s", r.Details)
	}
	if !strings.Contains(r.Message, "s.slowout: checking its result against its outputSchema costs more than the host gives") {
		t.Errorf("message %q", r.Message)
	}
}

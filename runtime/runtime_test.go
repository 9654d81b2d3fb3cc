package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/internal/testwait"
	"github.com/gnosis/gnosis/runtime/wire"
)

// syncBuffer is a log destination written from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var clickTool = Tool{
	Name:        "click",
	Description: "Click at a point.",
	// Odd spacing on purpose: describe must return these exact bytes.
	InputSchema: json.RawMessage(`{ "type":"object",  "properties":{"x":{"type":"integer","minimum":0},"y":{"type":"integer"}}, "required":["x","y"], "$schema":"https://json-schema.org/draft/2019-09/schema" }`),
}

var typeTool = Tool{Name: "type_text", Description: "Type text.", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)}

// allowAll is the policy of tests about something else than the policy.
var allowAll = Policy{Default: Rule{Allow: []string{"*"}}}

// started returns a runtime over the given providers, started; every fake
// whose tools are set is then reported ready. Its policy allows everything
// unless opts set one.
func started(t *testing.T, opts []Option, fakes ...*fakeProvider) *Runtime {
	t.Helper()
	for _, f := range fakes {
		opts = append(opts, WithProvider(f))
	}
	r := startRuntime(t, append([]Option{WithPolicy(allowAll)}, opts...))
	for _, f := range fakes {
		if len(f.tools) > 0 {
			f.set(Status{State: StateReady}, f.tools)
		}
	}
	return r
}

// startRuntime returns a runtime built with opts, started, closed when the
// test ends.
func startRuntime(t *testing.T, opts []Option) *Runtime {
	t.Helper()
	r := New(opts...)
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestListIsSortedWithMetaCapabilities(t *testing.T) {
	titled := Tool{Name: "z", Title: "Zed", Annotations: json.RawMessage(`{"readOnlyHint":true}`), InputSchema: json.RawMessage(`{}`)}
	r := started(t, nil, newFake("munim", "computer", typeTool, clickTool), newFake("other", "alpha", titled))
	want := []Summary{
		{Name: "alpha.z", Title: "Zed", Annotations: json.RawMessage(`{"readOnlyHint":true}`)},
		{Name: MetaDescribe, Description: metaCapabilities[1].Description},
		{Name: MetaList, Description: metaCapabilities[0].Description},
		{Name: "computer.click", Description: "Click at a point."},
		{Name: "computer.type_text", Description: "Type text."},
	}
	if diff := cmp.Diff(want, r.List()); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

func TestDescribeReturnsTheProviderSchemaBytes(t *testing.T) {
	r := started(t, nil, newFake("munim", "computer", clickTool))
	got, err := r.Describe("computer.click")
	if err != nil {
		t.Fatal(err)
	}
	want := Capability{Name: "computer.click", Description: "Click at a point.", InputSchema: clickTool.InputSchema, Provider: "munim"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Describe (-want +got):\n%s", diff)
	}
	if _, err := r.Describe("computer.nope"); wire.CodeOf(err) != wire.CodeCapabilityNotFound {
		t.Errorf("unknown name: %v, want CAPABILITY_NOT_FOUND", err)
	}
}

func TestExecuteChecksInProtocolOrder(t *testing.T) {
	policy := Policy{Default: Rule{Allow: []string{"*"}}, Origins: map[string]Rule{
		"https://chat.example": {Allow: []string{"computer.*", "later.*"}},
		"https://evil.example": {},
	}}
	munim := newFake("munim", "computer", clickTool)
	down := newFake("broken", "broken", typeTool)
	later := newFake("later", "later") // never lists its tools
	r := started(t, []Option{WithPolicy(policy)}, munim, down, later)
	down.set(Status{State: StateDown, Err: "exited"}, nil)
	later.set(Status{State: StateDown, Err: "exited"}, nil) // starting, it would be waited for (startwait_test.go)

	tests := []struct {
		name   string
		call   Call
		want   wire.Code
		detail any
	}{
		{"unknown tool of a ready provider", Call{Capability: "computer.nope"}, wire.CodeCapabilityNotFound, nil},
		{"name without a prefix", Call{Capability: "click"}, wire.CodeCapabilityNotFound, nil},
		{"unknown meta name", Call{Capability: "capabilities.nope"}, wire.CodeCapabilityNotFound, nil},
		{"unknown capability wins over policy", Call{Capability: "computer.nope", Origin: "https://evil.example"}, wire.CodeCapabilityNotFound, nil},
		{"forbidden origin", Call{Capability: "computer.click", Origin: "https://evil.example", Arguments: json.RawMessage(`{"x":1,"y":2}`)}, wire.CodeForbidden,
			ForbiddenDetails{Reason: ReasonNotGranted}},
		{"origin allowed by its patterns", Call{Capability: "computer.click", Origin: "https://chat.example", Arguments: json.RawMessage(`{"x":1,"y":2}`)}, "", nil},
		{"meta is allowed to any origin", Call{Capability: MetaList, Origin: "https://evil.example"}, "", nil},
		{"prefix of no provider", Call{Capability: "ghost.walk"}, wire.CodeProviderNotFound, nil},
		{"policy before provider not found", Call{Capability: "ghost.walk", Origin: "https://evil.example"}, wire.CodeForbidden, nil},
		{"provider down", Call{Capability: "broken.type_text", Arguments: json.RawMessage(`{"text":"x"}`)}, wire.CodeProviderUnavailable, nil},
		{"policy before provider down", Call{Capability: "broken.type_text", Origin: "https://evil.example"}, wire.CodeForbidden, nil},
		{"provider that has not listed its tools yet", Call{Capability: "later.anything"}, wire.CodeProviderUnavailable, nil},
		{"provider down before invalid arguments", Call{Capability: "broken.type_text", Arguments: json.RawMessage(`[]`)}, wire.CodeProviderUnavailable, nil},
		{"schema violation", Call{Capability: "computer.click", Arguments: json.RawMessage(`{"x":-1}`)}, wire.CodeInvalidArguments,
			ValidationDetails{Errors: []Violation{{Path: "/x", Keyword: "minimum", Message: "must be at least 0", KeywordLocation: "/properties/x/minimum"}, {Path: "/y", Keyword: "required", Message: `"y" is required`, KeywordLocation: "/required"}}}},
		{"arguments that are an array", Call{Capability: "computer.click", Arguments: json.RawMessage(`[1,2]`)}, wire.CodeInvalidArguments,
			ValidationDetails{Errors: []Violation{{Path: "", Keyword: "type", Message: "arguments must be a JSON object"}}}},
		{"arguments that are a string", Call{Capability: "computer.click", Arguments: json.RawMessage(`"x"`)}, wire.CodeInvalidArguments, nil},
		{"describe without a name", Call{Capability: MetaDescribe}, wire.CodeInvalidArguments, nil},
		{"describe of an unknown name", Call{Capability: MetaDescribe, Arguments: json.RawMessage(`{"name":"nope"}`)}, wire.CodeCapabilityNotFound, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.Execute(context.Background(), tc.call)
			if err != nil {
				var e *wire.Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v is not a *wire.Error", err)
				}
			}
			if got := codeOrOK(err); got != tc.want {
				t.Fatalf("code = %q, want %q (err %v)", got, tc.want, err)
			}
			if tc.detail != nil {
				var e *wire.Error
				errors.As(err, &e)
				if diff := cmp.Diff(tc.detail, e.Details); diff != "" {
					t.Errorf("details (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func codeOrOK(err error) wire.Code {
	if err == nil {
		return ""
	}
	return wire.CodeOf(err)
}

func TestExecutePassesArgumentsAndDefaultsThemToAnObject(t *testing.T) {
	f := newFake("munim", "computer", Tool{Name: "noop", InputSchema: json.RawMessage(`{"type":"object"}`)}, clickTool)
	r := started(t, nil, f)
	tests := []struct {
		name string
		call Call
		want fakeCall
	}{
		{"nil arguments become {}", Call{Capability: "computer.noop"}, fakeCall{"noop", "{}"}},
		{"null arguments become {}", Call{Capability: "computer.noop", Arguments: json.RawMessage("null")}, fakeCall{"noop", "{}"}},
		{"arguments go through untouched", Call{Capability: "computer.click", Arguments: json.RawMessage(`{"x":1,"y":2,"extra":"é"}`)}, fakeCall{"click", `{"x":1,"y":2,"extra":"é"}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := r.Execute(context.Background(), tc.call); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, f.lastCall()); diff != "" {
				t.Errorf("provider call (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExecuteTurnsProviderOutcomesIntoCodes(t *testing.T) {
	toolErr := json.RawMessage(`{"content":[{"type":"text","text":"window not found"}],"isError":true}`)
	tests := []struct {
		name    string
		result  json.RawMessage
		err     error
		block   bool
		want    wire.Code
		details any
	}{
		{"result passes through", json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`), nil, false, "", nil},
		{"isError is EXECUTION_ERROR with the whole result", toolErr, nil, false, wire.CodeExecutionError, toolErr},
		{"a plain provider error is EXECUTION_ERROR", nil, errors.New("boom"), false, wire.CodeExecutionError, nil},
		{"a coded provider error keeps its code", nil, &wire.Error{Code: wire.CodeTimeout, Message: "slow"}, false, wire.CodeTimeout, nil},
		{"cancelling the context is CANCELLED", nil, nil, true, wire.CodeCancelled, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake("munim", "computer", Tool{Name: "act", InputSchema: json.RawMessage(`{}`)})
			f.result, f.err, f.block = tc.result, tc.err, tc.block
			r := started(t, nil, f)
			ctx, cancel := context.WithCancel(context.Background())
			if tc.block {
				cancel()
			}
			defer cancel()
			res, err := r.Execute(ctx, Call{Capability: "computer.act"})
			if got := codeOrOK(err); got != tc.want {
				t.Fatalf("code = %q, want %q (err %v)", got, tc.want, err)
			}
			if err == nil && !bytes.Equal(res, tc.result) {
				t.Errorf("result = %s, want %s", res, tc.result)
			}
			if tc.details != nil {
				var e *wire.Error
				errors.As(err, &e)
				if diff := cmp.Diff(tc.details, e.Details); diff != "" {
					t.Errorf("details (-want +got):\n%s", diff)
				}
				if !strings.Contains(e.Message, "window not found") {
					t.Errorf("message %q does not quote the tool's text", e.Message)
				}
			}
		})
	}
}

func TestMetaCapabilitiesExecuteLikeTheirMethods(t *testing.T) {
	r := started(t, nil, newFake("munim", "computer", clickTool))
	list, err := r.Execute(context.Background(), Call{Capability: MetaList})
	if err != nil {
		t.Fatal(err)
	}
	var gotList struct{ Capabilities []Summary }
	if err := json.Unmarshal(list, &gotList); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r.List(), gotList.Capabilities); diff != "" {
		t.Errorf("list result (-List() +executed):\n%s", diff)
	}
	desc, err := r.Execute(context.Background(), Call{Capability: MetaDescribe, Arguments: json.RawMessage(`{"name":"computer.click"}`)})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"computer.click","description":"Click at a point.","inputSchema":` + compactJSON(t, clickTool.InputSchema) + `}`
	if diff := cmp.Diff(want, string(desc)); diff != "" {
		t.Errorf("describe result (-want +got):\n%s", diff)
	}
	self, err := r.Describe(MetaDescribe)
	if err != nil || self.Provider != "" {
		t.Errorf("meta-capability not describable: %+v %v", self, err)
	}
}

func compactJSON(t *testing.T, b []byte) string {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestHealthAndEvents(t *testing.T) {
	var mu sync.Mutex
	var evs []Event
	f := newFake("munim", "computer")
	r := New(WithProvider(f), WithEvents(func(e Event) { mu.Lock(); evs = append(evs, e); mu.Unlock() }))
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	want := Health{Status: "degraded", Capabilities: 2, Providers: []ProviderHealth{{Name: "munim", Prefix: "computer", State: StateStarting}}}
	if diff := cmp.Diff(want, r.Health()); diff != "" {
		t.Errorf("health while starting (-want +got):\n%s", diff)
	}
	f.set(Status{State: StateReady}, []Tool{clickTool, typeTool})
	want = Health{Status: "ok", Capabilities: 4, Providers: []ProviderHealth{{Name: "munim", Prefix: "computer", State: StateReady, Capabilities: 2}}}
	if diff := cmp.Diff(want, r.Health()); diff != "" {
		t.Errorf("health when ready (-want +got):\n%s", diff)
	}
	f.set(Status{State: StateDown, Err: "the server exited: exit status 3"}, nil)
	want = Health{Status: "degraded", Capabilities: 4, Providers: []ProviderHealth{{Name: "munim", Prefix: "computer", State: StateDown, Capabilities: 2, Error: "the server exited: exit status 3"}}}
	if diff := cmp.Diff(want, r.Health()); diff != "" {
		t.Errorf("health when down: tools stay registered (-want +got):\n%s", diff)
	}
	mu.Lock()
	defer mu.Unlock()
	wantEvents := []Event{
		{Kind: EventProviderState, Capabilities: 4, Provider: ProviderHealth{Name: "munim", Prefix: "computer", State: StateReady, Capabilities: 2}},
		{Kind: EventCapabilitiesChanged, Capabilities: 4},
		{Kind: EventProviderState, Capabilities: 4, Provider: ProviderHealth{Name: "munim", Prefix: "computer", State: StateDown, Capabilities: 2, Error: "the server exited: exit status 3"}},
	}
	if diff := cmp.Diff(wantEvents, evs); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestConfigurationProblemsMakeTheRuntimeDegraded(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want string
	}{
		{"broken config file", []Option{WithDegraded("config: invalid JSON at line 3")}, "config: invalid JSON at line 3"},
		{"duplicate prefix", []Option{WithProvider(newFake("a", "computer")), WithProvider(newFake("b", "computer"))}, `provider "b": prefix "computer" is already used by "a"`},
		{"reserved prefix", []Option{WithProvider(newFake("a", "capabilities"))}, `provider "a": prefix "capabilities" is not allowed`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := New(tc.opts...).Health()
			if h.Status != "degraded" || h.Error != tc.want {
				t.Errorf("health = %+v, want degraded with %q", h, tc.want)
			}
			if h.Capabilities != 2 {
				t.Errorf("capabilities = %d, want the 2 meta-capabilities", h.Capabilities)
			}
		})
	}
}

// countingValidator counts compilations.
type countingValidator struct {
	mu sync.Mutex
	n  map[string]int
	v  Validator
}

func (c *countingValidator) Compile(s json.RawMessage) (Schema, error) {
	c.mu.Lock()
	c.n[string(s)]++
	c.mu.Unlock()
	return c.v.Compile(s)
}

// count is how many times s was compiled.
func (c *countingValidator) count(s string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[s]
}

func TestSchemasAreCompiledOncePerDistinctSchema(t *testing.T) {
	cv := &countingValidator{n: map[string]int{}, v: NewValidator()}
	f := newFake("munim", "computer", clickTool)
	r := started(t, []Option{WithValidator(cv)}, f)
	for range 3 {
		f.set(Status{State: StateReady}, []Tool{clickTool})
		if _, err := r.Execute(context.Background(), Call{Capability: "computer.click", Arguments: json.RawMessage(`{"x":1,"y":1}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := cv.count(string(clickTool.InputSchema)); got != 1 {
		t.Errorf("click schema compiled %d times, want 1", got)
	}
	changed := Tool{Name: "click", InputSchema: json.RawMessage(`{"type":"object"}`)}
	f.set(Status{State: StateReady}, []Tool{changed})
	for range 2 {
		if _, err := r.Execute(context.Background(), Call{Capability: "computer.click", Arguments: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := cv.count(`{"type":"object"}`); got != 1 {
		t.Errorf("changed schema compiled %d times, want 1", got)
	}
}

func TestASchemaThatDoesNotCompileMakesItsToolUnavailable(t *testing.T) {
	var logs syncBuffer
	bad := Tool{Name: "odd", Description: "Odd schema.", InputSchema: json.RawMessage(`{"type":"object","properties":7}`)}
	f := newFake("munim", "computer", bad, clickTool)
	r := started(t, []Option{WithLogger(zerolog.New(&logs))}, f)
	got, err := r.Describe("computer.odd")
	if err != nil || string(got.InputSchema) != string(bad.InputSchema) {
		t.Fatalf("describe = %+v, %v", got, err)
	}
	for range 2 {
		_, err := r.Execute(context.Background(), Call{Capability: "computer.odd", Arguments: json.RawMessage(`{"a":1}`)})
		var e *wire.Error
		if !errors.As(err, &e) || e.Code != wire.CodeExecutionError || !strings.Contains(e.Message, "computer.odd is unavailable: its inputSchema cannot be used: ") {
			t.Errorf("execute = %v, want EXECUTION_ERROR saying the schema cannot be used", err)
		}
	}
	if n := f.callCount(); n != 0 {
		t.Errorf("the server was called %d times", n)
	}
	unavailable := func() error {
		for _, s := range r.List() {
			if s.Name == "computer.odd" && strings.HasPrefix(s.Unavailable, "its inputSchema cannot be used: ") {
				return nil
			}
		}
		return fmt.Errorf("computer.odd is not listed unavailable: %+v", r.List())
	}
	testwait.Until(t, 10*time.Second, unavailable)
	if n := strings.Count(logs.String(), "inputSchema cannot be used; the tool is unavailable"); n != 1 {
		t.Errorf("warning logged %d times, want once:\n%s", n, logs.String())
	}
	if _, err := r.Execute(context.Background(), Call{Capability: "computer.click", Arguments: json.RawMessage(`{"x":1,"y":2}`)}); err != nil {
		t.Errorf("the other tool: %v", err)
	}
}

// gatedValidator compiles only once open is closed.
type gatedValidator struct {
	open chan struct{}
	v    Validator
}

func (g *gatedValidator) Compile(s json.RawMessage) (Schema, error) {
	<-g.open
	return g.v.Compile(s)
}

func TestCompilationNeitherDelaysReadinessNorLetsACallRunUnchecked(t *testing.T) {
	g := &gatedValidator{open: make(chan struct{}), v: NewValidator()}
	f := newFake("munim", "computer", clickTool)
	r := started(t, []Option{WithValidator(g)}, f)
	// Ready and listed while no schema could compile.
	if h := r.Health(); h.Status != "ok" || h.Providers[0].Capabilities != 1 {
		t.Fatalf("health %+v while compiling", h)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.Execute(context.Background(), Call{Capability: "computer.click", Arguments: json.RawMessage(`{"x":"left"}`)})
		done <- err
	}()
	close(g.open)
	err := <-done
	var e *wire.Error
	if !errors.As(err, &e) || e.Code != wire.CodeInvalidArguments {
		t.Fatalf("execute = %v, want INVALID_ARGUMENTS once the schema compiled", err)
	}
	if n := f.callCount(); n != 0 {
		t.Errorf("the server was called %d times", n)
	}
}

func TestExecuteLogsOneLineWithTruncatedArguments(t *testing.T) {
	var logs bytes.Buffer
	r := started(t, []Option{WithLogger(zerolog.New(&logs))}, newFake("munim", "computer", typeTool))
	long := strings.Repeat("é", 300)
	logs.Reset()
	if _, err := r.Execute(context.Background(), Call{ID: "42", Capability: "computer.type_text", Origin: "https://chat.example", Arguments: json.RawMessage(`{"text":"` + long + `"}`)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d log lines, want 1:\n%s", len(lines), logs.String())
	}
	var rec struct {
		ID, Capability, Origin, Outcome, Message string
		Duration                                 *float64
		Arguments                                map[string]string
	}
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.ID != "42" || rec.Capability != "computer.type_text" || rec.Origin != "https://chat.example" || rec.Outcome != "ok" || rec.Message != "execute" || rec.Duration == nil {
		t.Errorf("log line = %s", lines[0])
	}
	if n := len(rec.Arguments["text"]); n > maxLoggedValue+len("…") || !strings.HasSuffix(rec.Arguments["text"], "…") {
		t.Errorf("text argument logged with %d bytes: %q", n, rec.Arguments["text"])
	}
}

func TestExecuteAfterCloseIsCancelled(t *testing.T) {
	r := started(t, nil, newFake("munim", "computer", typeTool))
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Execute(context.Background(), Call{Capability: "computer.type_text", Arguments: json.RawMessage(`{"text":"x"}`)})
	if got := codeOrOK(err); got != wire.CodeCancelled {
		t.Errorf("code = %q, want CANCELLED", got)
	}
	if _, err := r.Execute(context.Background(), Call{Capability: MetaList}); err != nil {
		t.Errorf("meta-capabilities still answer after Close: %v", err)
	}
}

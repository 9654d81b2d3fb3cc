package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/runtime/wire"
)

// closingFake is a fakeProvider that records Close and, like the MCP
// provider, reports itself down while it stops.
type closingFake struct {
	*fakeProvider
	closed atomic.Bool
}

func (c *closingFake) Close() error {
	c.closed.Store(true)
	c.mu.Lock()
	n := c.notify
	c.mu.Unlock()
	if n != nil {
		c.set(Status{State: StateDown, Err: "closed"}, nil)
	}
	return nil
}

// eventLog collects a runtime's events.
type eventLog struct {
	mu  sync.Mutex
	evs []Event
}

func (l *eventLog) add(e Event) { l.mu.Lock(); l.evs = append(l.evs, e); l.mu.Unlock() }

// since returns the events after the first n.
func (l *eventLog) since(n int) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.evs[n:]...)
}

func (l *eventLog) len() int { l.mu.Lock(); defer l.mu.Unlock(); return len(l.evs) }

func liveRuntime(t *testing.T, fakes ...*closingFake) (*Runtime, *eventLog) {
	t.Helper()
	log := &eventLog{}
	opts := []Option{WithPolicy(allowAll), WithEvents(log.add)}
	for _, f := range fakes {
		opts = append(opts, WithProvider(f))
	}
	r := startRuntime(t, opts)
	for _, f := range fakes {
		f.set(Status{State: StateReady}, f.tools)
	}
	return r, log
}

func names(r *Runtime) []string {
	var out []string
	for _, s := range r.List() {
		out = append(out, s.Name)
	}
	return out
}

// A provider added while the runtime serves starts, reports its state, and
// its tools run.
func TestSetProviderAddsOneWhileServing(t *testing.T) {
	a := &closingFake{fakeProvider: newFake("munim", "computer", clickTool)}
	r, log := liveRuntime(t, a)
	mark := log.len()
	b := &closingFake{fakeProvider: newFake("files", "files", typeTool)}
	if err := r.SetProvider(b); err != nil {
		t.Fatal(err)
	}
	b.set(Status{State: StateReady}, []Tool{typeTool})
	want := []Event{
		{Kind: EventProviderState, Capabilities: 3, Provider: ProviderHealth{Name: "files", Prefix: "files", State: StateStarting}},
		{Kind: EventProviderState, Capabilities: 4, Provider: ProviderHealth{Name: "files", Prefix: "files", State: StateReady, Capabilities: 1}},
		{Kind: EventCapabilitiesChanged, Capabilities: 4},
	}
	if d := cmp.Diff(want, log.since(mark)); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	if _, err := r.Execute(context.Background(), Call{Capability: "files.type_text", Arguments: []byte(`{"text":"hi"}`)}); err != nil {
		t.Fatal(err)
	}
	if got := b.lastCall(); got.Tool != "type_text" {
		t.Errorf("the new provider got %+v", got)
	}
	if h := r.Health(); h.Status != "ok" || len(h.Providers) != 2 {
		t.Errorf("health %+v", h)
	}
}

// Editing a provider closes the old one, drops its tools, and starts the new
// one in its place; what the old one reports while it stops is ignored.
func TestSetProviderReplacesAndClosesTheOld(t *testing.T) {
	a := &closingFake{fakeProvider: newFake("munim", "computer", clickTool)}
	other := &closingFake{fakeProvider: newFake("files", "files", typeTool)}
	r, log := liveRuntime(t, a, other)
	mark := log.len()
	a2 := &closingFake{fakeProvider: newFake("munim", "desk", typeTool)}
	if err := r.SetProvider(a2); err != nil {
		t.Fatal(err)
	}
	if !a.closed.Load() || other.closed.Load() {
		t.Errorf("closed: old %v, other %v; want only the old", a.closed.Load(), other.closed.Load())
	}
	if d := cmp.Diff([]string{"capabilities.describe", "capabilities.list", "files.type_text"}, names(r)); d != "" {
		t.Errorf("capabilities while the new one starts (-want +got):\n%s", d)
	}
	want := []Event{
		{Kind: EventProviderState, Capabilities: 3, Provider: ProviderHealth{Name: "munim", Prefix: "desk", State: StateStarting}},
		{Kind: EventCapabilitiesChanged, Capabilities: 3},
	}
	if d := cmp.Diff(want, log.since(mark)); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	a2.set(Status{State: StateReady}, []Tool{typeTool})
	a.set(Status{State: StateDown, Err: "late"}, nil) // the old one, after it was replaced
	h := r.Health()
	wantProviders := []ProviderHealth{
		{Name: "munim", Prefix: "desk", State: StateReady, Capabilities: 1},
		{Name: "files", Prefix: "files", State: StateReady, Capabilities: 1},
	}
	if d := cmp.Diff(wantProviders, h.Providers); d != "" {
		t.Errorf("providers (-want +got):\n%s", d)
	}
	if _, err := r.Execute(context.Background(), Call{Capability: "computer.click", Arguments: []byte(`{"x":1,"y":2}`)}); !isCode(err, wire.CodeProviderNotFound) {
		t.Errorf("the old prefix: %v, want PROVIDER_NOT_FOUND", err)
	}
}

// Removing a provider closes it and takes its capabilities away.
func TestRemoveProviderTakesItsCapabilitiesAway(t *testing.T) {
	a := &closingFake{fakeProvider: newFake("munim", "computer", clickTool)}
	r, log := liveRuntime(t, a)
	mark := log.len()
	if err := r.RemoveProvider("munim"); err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{Kind: EventProviderState, Capabilities: 2, Provider: ProviderHealth{Name: "munim", Prefix: "computer", State: StateRemoved}},
		{Kind: EventCapabilitiesChanged, Capabilities: 2},
	}
	if d := cmp.Diff(want, log.since(mark)); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	if !a.closed.Load() {
		t.Error("the removed provider was not closed")
	}
	if h := r.Health(); len(h.Providers) != 0 || h.Capabilities != 2 {
		t.Errorf("health %+v", h)
	}
	if _, err := r.Execute(context.Background(), Call{Capability: "computer.click", Arguments: []byte(`{"x":1,"y":2}`)}); !isCode(err, wire.CodeProviderNotFound) {
		t.Errorf("execute after removal: %v, want PROVIDER_NOT_FOUND", err)
	}
	if err := r.RemoveProvider("munim"); !isCode(err, wire.CodeProviderNotFound) {
		t.Errorf("removing it again: %v, want PROVIDER_NOT_FOUND", err)
	}
}

// A provider that would take another's prefix, or the reserved one, is
// refused and nothing changes.
func TestSetProviderRefusesATakenPrefix(t *testing.T) {
	a := &closingFake{fakeProvider: newFake("munim", "computer", clickTool)}
	r, _ := liveRuntime(t, a)
	for _, p := range []*closingFake{
		{fakeProvider: newFake("other", "computer")},
		{fakeProvider: newFake("meta", "capabilities")},
	} {
		if err := r.SetProvider(p); err == nil || !strings.Contains(err.Error(), "prefix") {
			t.Errorf("%s: %v, want a prefix error", p.name, err)
		}
	}
	if a.closed.Load() || len(r.Health().Providers) != 1 {
		t.Errorf("something changed: %+v", r.Health())
	}
}

// Before Start a provider set is started by Start; after Close none is.
func TestSetProviderBeforeStartAndAfterClose(t *testing.T) {
	r := New(WithPolicy(allowAll))
	b := &closingFake{fakeProvider: newFake("files", "files", typeTool)}
	if err := r.SetProvider(b); err != nil {
		t.Fatal(err)
	}
	if b.notify != nil {
		t.Fatal("started before Start")
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b.notify == nil {
		t.Fatal("not started by Start")
	}
	r.Close()
	if err := r.SetProvider(&closingFake{fakeProvider: newFake("late", "late")}); err == nil {
		t.Error("a provider was set after Close")
	}
}

// Configuration problems are recorded by source and replaced as the file
// changes; with none left (and every provider ready) health is ok.
func TestSetProblem(t *testing.T) {
	a := &closingFake{fakeProvider: newFake("munim", "computer", clickTool)}
	r, _ := liveRuntime(t, a)
	r.SetProblem("config", "policy.origins: keys clash")
	if h := r.Health(); h.Status != "degraded" || h.Error != "policy.origins: keys clash" {
		t.Errorf("health %+v", h)
	}
	r.SetProblem("config", "")
	if h := r.Health(); h.Status != "ok" || h.Error != "" {
		t.Errorf("health %+v", h)
	}
}

func isCode(err error, code wire.Code) bool { return err != nil && wire.CodeOf(err) == code }

// A provider set while the runtime serves asserts "format" exactly when its
// configuration asks (AssertingFormats), as one the runtime started with
// does; an edit without it makes formats annotations again.
func TestSetProviderAssertsFormatsAsAsked(t *testing.T) {
	mailTool := Tool{Name: "mail", InputSchema: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string","format":"email"}}}`)}
	a := &closingFake{fakeProvider: newFake("munim", "computer", clickTool)}
	r, _ := liveRuntime(t, a)
	tests := []struct {
		name    string
		opts    []SetOption
		refused bool
	}{
		{"asserting", []SetOption{AssertingFormats(true)}, true},
		{"edited without it", nil, false},
		{"asked off", []SetOption{AssertingFormats(false)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &closingFake{fakeProvider: newFake("mailer", "mail", mailTool)}
			if err := r.SetProvider(p, tt.opts...); err != nil {
				t.Fatal(err)
			}
			p.set(Status{State: StateReady}, []Tool{mailTool})
			_, err := r.Execute(context.Background(), Call{Capability: "mail.mail", Arguments: []byte(`{"to":"not an address"}`)})
			if got := wire.CodeOf(err) == wire.CodeInvalidArguments; got != tt.refused {
				t.Errorf("refused = %v (err %v), want %v", got, err, tt.refused)
			}
		})
	}
}

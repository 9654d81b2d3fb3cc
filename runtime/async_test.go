package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/testwait"
	"github.com/gnosis/gnosis/runtime/schema"
	"github.com/gnosis/gnosis/runtime/wire"
)

// asyncFake is a fakeProvider that is also an AsyncCaller: each call's done
// is handed to the test, which ends the call when it likes.
type asyncFake struct {
	*fakeProvider
	calls chan func(json.RawMessage, error)
}

func (a *asyncFake) CallAsync(_ context.Context, tool string, args json.RawMessage, done func(json.RawMessage, error)) {
	a.mu.Lock()
	a.fakeProvider.calls = append(a.fakeProvider.calls, fakeCall{tool, string(args)})
	a.mu.Unlock()
	a.calls <- done
}

func startedAsync(t *testing.T, opts []Option, tools ...Tool) (*Runtime, *asyncFake) {
	t.Helper()
	a := &asyncFake{fakeProvider: newFake("a", "a", tools...), calls: make(chan func(json.RawMessage, error), 1000)}
	r := New(append([]Option{WithPolicy(allowAll), WithProvider(a)}, opts...)...)
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	a.set(Status{State: StateReady}, tools)
	return r, a
}

type outcomeOf struct {
	Result string
	Code   wire.Code
}

func collect(ch chan outcomeOf) func(json.RawMessage, error) {
	return func(res json.RawMessage, err error) {
		o := outcomeOf{Result: string(res)}
		if err != nil {
			o.Code = wire.CodeOf(err)
		}
		ch <- o
	}
}

func TestExecuteAsyncHoldsNoGoroutineWhileTheCallRuns(t *testing.T) {
	r, a := startedAsync(t, nil, clickTool)
	const n = 200
	before := runtime.NumGoroutine()
	got := make(chan outcomeOf, n)
	for range n {
		r.ExecuteAsync(context.Background(), Call{Capability: "a.click", Arguments: json.RawMessage(`{"x":1,"y":2}`)}, collect(got))
	}
	// Each call's arguments are checked on a goroutine that ends once the
	// call has reached the provider.
	var dones []func(json.RawMessage, error)
	for range n {
		dones = append(dones, <-a.calls)
	}
	testwait.Until(t, 10*time.Second, func() error {
		if grew := runtime.NumGoroutine() - before; grew > n/10 {
			return fmt.Errorf("%d calls in flight added %d goroutines; want none per call", n, grew)
		}
		return nil
	})
	select {
	case o := <-got:
		t.Fatalf("answered %+v before the provider ended the call", o)
	default:
	}
	for _, done := range dones {
		done(json.RawMessage(`{"content":[]}`), nil)
	}
	for range n {
		if o := <-got; o != (outcomeOf{`{"content":[]}`, ""}) {
			t.Fatalf("outcome %+v", o)
		}
	}
}

func TestExecuteAsyncAnswersEveryOutcomeOnce(t *testing.T) {
	tests := []struct {
		name string
		call Call
		end  func(done func(json.RawMessage, error)) // nil: the call never reaches the provider
		want outcomeOf
	}{
		{name: "a result", call: Call{Capability: "a.weather"},
			end: func(done func(json.RawMessage, error)) {
				done(json.RawMessage(`{"content":[],"structuredContent":{"temperature":1,"conditions":"dry"}}`), nil)
			},
			want: outcomeOf{`{"content":[],"structuredContent":{"temperature":1,"conditions":"dry"}}`, ""}},
		{name: "a tool error", call: Call{Capability: "a.weather"},
			end:  func(done func(json.RawMessage, error)) { done(json.RawMessage(`{"content":[],"isError":true}`), nil) },
			want: outcomeOf{"", wire.CodeExecutionError}},
		{name: "a result that does not match the outputSchema", call: Call{Capability: "a.weather"},
			end: func(done func(json.RawMessage, error)) {
				done(json.RawMessage(`{"content":[],"structuredContent":{}}`), nil)
			},
			want: outcomeOf{"", wire.CodeExecutionError}},
		{name: "a provider error keeps its code", call: Call{Capability: "a.weather"},
			end:  func(done func(json.RawMessage, error)) { done(nil, wire.Errorf(wire.CodeTimeout, "slow")) },
			want: outcomeOf{"", wire.CodeTimeout}},
		{name: "arguments that fail the input schema", call: Call{Capability: "a.click", Arguments: json.RawMessage(`{"x":"left"}`)},
			want: outcomeOf{"", wire.CodeInvalidArguments}},
		{name: "an unknown capability", call: Call{Capability: "a.nothing"},
			want: outcomeOf{"", wire.CodeCapabilityNotFound}},
		{name: "a meta-capability", call: Call{Capability: MetaDescribe, Arguments: json.RawMessage(`{"name":"a.click"}`)},
			want: outcomeOf{Code: ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, a := startedAsync(t, nil, clickTool, weatherTool)
			got := make(chan outcomeOf, 2)
			r.ExecuteAsync(context.Background(), tt.call, collect(got))
			if tt.end != nil {
				done := <-a.calls
				tt.end(done)
				tt.end(done) // a provider that answers twice is heard once
			}
			o := <-got
			if tt.call.Capability == MetaDescribe {
				o.Result = "" // its payload is tested elsewhere
			}
			if diff := cmp.Diff(tt.want, o); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// Every end above ran on this goroutine and has returned: a
			// second answer would be in got already.
			select {
			case extra := <-got:
				t.Errorf("answered twice: %+v", extra)
			default:
			}
		})
	}
}

// panicky is a validator whose schemas panic on a value that holds "boom",
// as a hostile schema could make a real one do.
type panicky struct{ Validator }

type panickySchema struct{ Schema }

func (p panicky) Compile(s json.RawMessage) (Schema, error) {
	c, err := p.Validator.Compile(s)
	if err != nil {
		return nil, err
	}
	return panickySchema{c}, nil
}

func (p panickySchema) Validate(v any, b *schema.Budget) ([]Violation, error) {
	if strings.Contains(fmt.Sprint(v), "boom") {
		panic("boom")
	}
	return p.Schema.Validate(v, b)
}

func TestAPanicCheckingAResultBecomesAnErrorWhereTheCallEnds(t *testing.T) {
	r, a := startedAsync(t, []Option{WithValidator(panicky{NewValidator()})}, weatherTool)
	got := make(chan outcomeOf, 1)
	r.ExecuteAsync(context.Background(), Call{Capability: "a.weather"}, collect(got))
	done := <-a.calls
	done(json.RawMessage(`{"content":[],"structuredContent":{"temperature":1,"conditions":"boom"}}`), nil) // on this goroutine: a panic would end the test binary
	if diff := cmp.Diff(outcomeOf{"", wire.CodeExecutionError}, <-got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestACallNeedingApprovalWaitsOffTheCallersGoroutine(t *testing.T) {
	approved := make(chan chan error)
	ask := func(ctx context.Context, _ Approval) error {
		answer := make(chan error)
		approved <- answer
		return <-answer
	}
	r, a := startedAsync(t, []Option{WithPolicy(Policy{Default: Rule{Ask: []string{"a.click"}}})}, clickTool)
	got := make(chan outcomeOf, 1)
	r.ExecuteAsync(context.Background(), Call{Capability: "a.click", Arguments: json.RawMessage(`{"x":1,"y":1}`), Approve: ask}, collect(got))
	// ExecuteAsync has returned while the user is still being asked.
	answer := <-approved
	answer <- nil
	(<-a.calls)(json.RawMessage(`{"content":[]}`), nil)
	if diff := cmp.Diff(outcomeOf{`{"content":[]}`, ""}, <-got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

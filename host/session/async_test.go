package session

import (
	"context"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/runtime"
)

// parkedRuntime keeps every execute's done for the test to call, as a
// provider keeps a call until its server answers.
type parkedRuntime struct {
	Runtime // not called
	started chan func(json.RawMessage, error)
	start   func(done func(json.RawMessage, error)) // replaces parking when set
}

func (p *parkedRuntime) ExecuteAsync(_ context.Context, _ runtime.Call, done func(json.RawMessage, error)) {
	if p.start != nil {
		p.start(done)
		return
	}
	p.started <- done
}

func (*parkedRuntime) Close() error { return nil }

func TestAnExecuteInFlightHoldsNoGoroutine(t *testing.T) {
	rt := &parkedRuntime{started: make(chan func(json.RawMessage, error), 200)}
	h := serve(t, New(), rt)
	const n = 100
	before := goruntime.NumGoroutine()
	for i := range n {
		h.send(fmt.Sprintf(`{"id":%d,"method":"execute","params":{"capability":"a.b"}}`, i))
	}
	dones := make([]func(json.RawMessage, error), 0, n)
	for range n {
		dones = append(dones, <-rt.started)
	}
	if grew := goruntime.NumGoroutine() - before; grew > n/10 {
		t.Errorf("%d executes in flight added %d goroutines; want none per execute", n, grew)
	}
	go func() { // one goroutine ends them all, as a provider's reader does
		for _, done := range dones {
			done(json.RawMessage(`{"content":[]}`), nil)
		}
	}()
	ids := map[float64]bool{}
	for range n {
		m := h.next()
		if m["ok"] != true {
			t.Fatalf("reply %v", m)
		}
		ids[m["id"].(float64)] = true
	}
	if len(ids) != n {
		t.Errorf("%d distinct replies, want %d", len(ids), n)
	}
}

func TestAnExecuteIsAnsweredOnce(t *testing.T) {
	tests := []struct {
		name  string
		start func(done func(json.RawMessage, error))
		want  map[string]any
	}{
		{"answered twice", func(done func(json.RawMessage, error)) {
			done(json.RawMessage(`{"n":1}`), nil)
			done(json.RawMessage(`{"n":2}`), nil)
		}, map[string]any{"id": 1.0, "ok": true}},
		{"a panic after the answer", func(done func(json.RawMessage, error)) {
			done(json.RawMessage(`{"n":1}`), nil)
			panic("late")
		}, map[string]any{"id": 1.0, "ok": true}},
		{"a panic before any answer", func(func(json.RawMessage, error)) { panic("early") },
			map[string]any{"id": 1.0, "ok": false, "code": "EXECUTION_ERROR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := serve(t, New(), &parkedRuntime{start: tt.start})
			got := h.call(`{"id":1,"method":"execute","params":{"capability":"a.b"}}`)
			if diff := cmp.Diff(tt.want, pick(got, "id", "ok", "code")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// One reply only: the next request's reply is the next message.
			if got := h.call(`{"id":2,"method":"cancel","params":{"id":1}}`); got["id"] != 2.0 {
				t.Errorf("after the reply came %v, want the reply to request 2", got)
			}
		})
	}
}

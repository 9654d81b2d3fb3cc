package runtime

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rs/zerolog"
	"io"
)

// BenchmarkExecuteOverhead is the runtime's own cost per call (lookup,
// policy, validation, isError check, the info log line) with an AsyncCaller
// that answers at once, as the MCP provider's reader does.
func BenchmarkExecuteOverhead(b *testing.B) {
	f := &instantFake{newFake("munim", "computer", clickTool)}
	r := New(WithProvider(f), WithLogger(zerolog.New(io.Discard).Level(zerolog.InfoLevel)), WithPolicy(Policy{Default: Rule{Allow: []string{"computer.*"}}}))
	if err := r.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	f.set(Status{State: StateReady}, f.tools)
	call := Call{ID: "1", Capability: "computer.click", Origin: "https://chat.example", Arguments: json.RawMessage(`{"x":10,"y":20}`)}
	var failed error
	done := func(_ json.RawMessage, err error) { failed = err }
	b.ReportAllocs()
	for b.Loop() {
		r.ExecuteAsync(context.Background(), call, done)
		if failed != nil {
			b.Fatal(failed)
		}
	}
}

// instantFake answers every call on the caller's goroutine.
type instantFake struct{ *fakeProvider }

func (f *instantFake) CallAsync(ctx context.Context, tool string, args json.RawMessage, done func(json.RawMessage, error)) {
	done(f.result, nil)
}

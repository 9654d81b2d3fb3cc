package runtime

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rs/zerolog"
	"io"
)

// BenchmarkExecuteOverhead is the runtime's own cost per call (lookup,
// policy, validation, isError check, log line) with a provider that answers
// at once.
func BenchmarkExecuteOverhead(b *testing.B) {
	f := newFake("munim", "computer", clickTool)
	r := New(WithProvider(f), WithLogger(zerolog.New(io.Discard)), WithPolicy(Policy{Default: Rule{Allow: []string{"computer.*"}}}))
	if err := r.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	f.set(Status{State: StateReady}, f.tools)
	call := Call{ID: "1", Capability: "computer.click", Origin: "https://chat.example", Arguments: json.RawMessage(`{"x":10,"y":20}`)}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := r.Execute(context.Background(), call); err != nil {
			b.Fatal(err)
		}
	}
}

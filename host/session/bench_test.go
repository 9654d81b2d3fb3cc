package session

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/host/framing"
	"github.com/gnosis/gnosis/runtime"
)

// bigRuntime answers every execute with one prebuilt result, so the
// benchmark measures the session alone: reply building, chunking, framing.
type bigRuntime struct {
	Runtime
	result json.RawMessage
}

func (b bigRuntime) ExecuteAsync(_ context.Context, _ runtime.Call, done func(json.RawMessage, error)) {
	done(b.result, nil)
}
func (bigRuntime) Close() error { return nil }

// benchmarkBig sends execute requests and reads the chunked replies back
// through a Joiner, as the extension would.
func benchmarkBig(b *testing.B, rt Runtime, size int) {
	s := New()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go s.Serve(context.Background(), rt, inR, outW)
	defer inW.Close()
	r := framing.NewReader(outR, 0)
	// read consumes one reply's frames and returns its JSON size. It only
	// peeks at chunk headers: the client's decoding is not the host's cost.
	read := func() int {
		total := 0
		for {
			body, err := r.Read()
			if err != nil {
				b.Fatal(err)
			}
			total += len(body)
			var i, n int
			head := string(body[:min(len(body), 64)])
			if _, err := fmt.Sscanf(head, `{"id":1,"chunk":%d,"chunks":%d,`, &i, &n); err != nil {
				if !strings.Contains(head, `"ok":true`) {
					b.Fatalf("reply: %.200s", body)
				}
				return total
			}
			if i == n-1 {
				return total
			}
		}
	}
	req := []byte(`{"id":1,"method":"execute","params":{"capability":"toy.big","arguments":{"n":` + itoa(size) + `}}}`)
	framing.Write(inW, req)
	b.SetBytes(int64(read()))
	b.ResetTimer()
	for b.Loop() {
		framing.Write(inW, req)
		read()
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func BenchmarkSession16MiB(b *testing.B) {
	text := bigText(16 << 20)
	result, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	benchmarkBig(b, bigRuntime{result: result}, 0)
}

func BenchmarkSessionAndRuntime16MiB(b *testing.B) {
	toy := newToy()
	rt := runtime.New(runtime.WithProvider(toy), runtime.WithPolicy(runtime.Policy{Default: runtime.Rule{Allow: []string{"*"}}}))
	rt.Start(context.Background())
	go func() {
		for range toy.started {
		}
	}()
	benchmarkBig(b, rt, 16<<20)
}

// BenchmarkHealthRoundTrip measures one small request through real OS pipes:
// the host's share of every call's latency.
func BenchmarkHealthRoundTrip(b *testing.B) {
	s := New()
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	rt := runtime.New()
	go s.Serve(context.Background(), rt, inR, outW)
	defer inW.Close()
	r := framing.NewReader(outR, 0)
	req := []byte(`{"id":1,"method":"health"}`)
	for b.Loop() {
		framing.Write(inW, req)
		if _, err := r.Read(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecuteRoundTrip is BenchmarkHealthRoundTrip for an execute
// whose runtime answers at once: the session's own cost of the path every
// tool call takes (started by the reader, its reply written where the call
// ends), beside health's.
func BenchmarkExecuteRoundTrip(b *testing.B) {
	s := New()
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	rt := bigRuntime{result: json.RawMessage(`{"content":[{"type":"text","text":"hello"}]}`)}
	go s.Serve(context.Background(), rt, inR, outW)
	defer inW.Close()
	r := framing.NewReader(outR, 0)
	req := []byte(`{"id":1,"method":"execute","params":{"capability":"toy.echo","arguments":{"text":"hello"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		framing.Write(inW, req)
		if _, err := r.Read(); err != nil {
			b.Fatal(err)
		}
	}
}

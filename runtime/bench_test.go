package runtime

import (
	"context"
	"encoding/json"
	"fmt"
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

// forecastTool declares an outputSchema that describes every field of its
// result, and forecastResult is such a result of about 8 KB, its
// structuredContent repeated as text in content, as MCP servers send it.
var forecastTool = Tool{
	Name:        "forecast",
	InputSchema: json.RawMessage(`{"type":"object"}`),
	Raw: json.RawMessage(`{"name":"forecast","inputSchema":{"type":"object"},"outputSchema":{"type":"object",` +
		`"properties":{"place":{"type":"string"},"hours":{"type":"array","items":{"type":"object","properties":{` +
		`"time":{"type":"string","format":"date-time"},"temperature":{"type":"number"},"humidity":{"type":"integer","minimum":0,"maximum":100},` +
		`"conditions":{"enum":["sunny","cloudy","rain"]}},"required":["time","temperature","humidity","conditions"]}}},` +
		`"required":["place","hours"]}}`),
}

func forecastResult(hours int) json.RawMessage {
	type hour struct {
		Time        string  `json:"time"`
		Temperature float64 `json:"temperature"`
		Humidity    int     `json:"humidity"`
		Conditions  string  `json:"conditions"`
	}
	sc := struct {
		Place string `json:"place"`
		Hours []hour `json:"hours"`
	}{Place: "Lyon"}
	for i := range hours {
		sc.Hours = append(sc.Hours, hour{fmt.Sprintf("2026-06-01T%02d:00:00Z", i%24), 18.5 + float64(i%7), 40 + i%50, []string{"sunny", "cloudy", "rain"}[i%3]})
	}
	text, _ := json.Marshal(sc)
	res, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": string(text)}}, "structuredContent": sc})
	return res
}

// BenchmarkExecuteWithOutputSchema is the runtime's cost per call of a tool
// with an outputSchema and a ~8 KB structured result (the result check
// included).
func BenchmarkExecuteWithOutputSchema(b *testing.B) {
	f := &instantFake{newFake("munim", "computer", forecastTool)}
	f.result = forecastResult(48)
	r := New(WithProvider(f), WithLogger(zerolog.New(io.Discard).Level(zerolog.InfoLevel)), WithPolicy(Policy{Default: Rule{Allow: []string{"computer.*"}}}))
	if err := r.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	f.set(Status{State: StateReady}, f.tools)
	call := Call{ID: "1", Capability: "computer.forecast", Arguments: json.RawMessage(`{}`)}
	var failed error
	done := func(_ json.RawMessage, err error) { failed = err }
	b.SetBytes(int64(len(f.result)))
	b.ReportAllocs()
	for b.Loop() {
		r.ExecuteAsync(context.Background(), call, done)
		if failed != nil {
			b.Fatal(failed)
		}
	}
}

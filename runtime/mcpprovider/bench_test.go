package mcpprovider

import (
	"context"
	"encoding/json"
	"testing"

	rt "github.com/gnosis/gnosis/runtime"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkExecuteThroughRuntime is one echo call through the runtime:
// registry, policy, validation, raw tools/call, isError check, log line.
func BenchmarkExecuteThroughRuntime(b *testing.B) {
	h := startTestServer(b, Config{})
	call := rt.Call{Capability: "t.echo", Arguments: json.RawMessage(`{"text":"hello"}`)}
	b.ResetTimer()
	for range b.N {
		if _, err := h.rt.Execute(context.Background(), call); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDirectMCPGoClient is the same call with mcp-go's client alone.
func BenchmarkDirectMCPGoClient(b *testing.B) {
	c, err := client.NewStdioMCPClientWithOptions(testServer, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"text": "hello"}
	b.ResetTimer()
	for range b.N {
		if _, err := c.CallTool(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLargeResult is a 16 MiB image result through the runtime.
func BenchmarkLargeResult(b *testing.B) {
	h := startTestServer(b, Config{})
	call := rt.Call{Capability: "t.big", Arguments: json.RawMessage(`{"bytes":16777216}`)}
	b.SetBytes(16 << 20)
	b.ResetTimer()
	for range b.N {
		if _, err := h.rt.Execute(context.Background(), call); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkColdStart is spawn, initialize and discovery of a 50-tool server
// until the runtime lists its capabilities (then Close).
func BenchmarkColdStart(b *testing.B) {
	for range b.N {
		p := New(Config{Name: "test", Prefix: "t", Command: testServer, Args: []string{"-fillers", "41"}})
		r := rt.New(rt.WithProvider(p))
		if err := r.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		if err := r.WaitSettled(context.Background()); err != nil {
			b.Fatal(err)
		}
		if n := len(r.List()); n != 52 {
			b.Fatalf("%d capabilities, want 52", n)
		}
		b.StopTimer()
		r.Close()
		b.StartTimer()
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gnosis/gnosis/internal/stopreading"
)

// The tools of this file break the host's bounds on purpose. They are
// registered only with --faults (FAKEMUNIM_FAULTS=1), so the tool list the
// other tests and the benchmark see does not change.

// registerFaults adds stop_reading and huge_line. stdin is the server's
// input, which stop_reading stops reading.
func (f *fake) registerFaults(stdin *stopreading.Reader) {
	stop := mcp.NewToolWithRawSchema("stop_reading",
		"Stop reading stdin for good, as a hung server does; answers first.",
		json.RawMessage(`{"type":"object"}`))
	huge := mcp.NewToolWithRawSchema("huge_line",
		"Answer with one line of about bytes bytes, written straight to stdout in pieces (the server never holds it).",
		json.RawMessage(`{"type":"object","properties":{"bytes":{"type":"integer","minimum":0}},"required":["bytes"]}`))
	f.server.AddTools(
		server.ServerTool{Tool: stop, Handler: f.logged("stop_reading", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			stdin.Stop()
			fmt.Fprintln(os.Stderr, "fakemunim: no longer reading stdin")
			return mcp.NewToolResultText("stopped reading"), nil
		})},
		server.ServerTool{Tool: huge, Handler: f.logged("huge_line", hugeLine)},
	)
}

// hugeLine writes the call's answer itself: a tools/call result whose text
// is bytes long, addressed to the call's id (the host sends it as the
// progress token). mcp-go's own answer, written after it, finds the id
// already answered.
func hugeLine(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a struct {
		Bytes int64 `json:"bytes"`
	}
	if err := req.BindArguments(&a); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return mcp.NewToolResultError("huge_line needs the call's id as its progress token"), nil
	}
	id, err := json.Marshal(req.Params.Meta.ProgressToken)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"result":{"content":[{"type":"text","text":"`)
	if _, err := os.Stdout.Write(b.Bytes()); err != nil {
		return nil, err
	}
	piece := []byte(strings.Repeat("x", 1<<20))
	for left := a.Bytes; left > 0; left -= int64(len(piece)) {
		if _, err := os.Stdout.Write(piece[:min(int64(len(piece)), left)]); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stdout.WriteString("\"}]}}\n"); err != nil {
		return nil, err
	}
	return mcp.NewToolResultText("huge_line written"), nil
}

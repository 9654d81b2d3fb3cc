// Command testserver is the MCP stdio server the mcpprovider tests drive: it
// has the shapes a real server can take that the provider must handle
// (schemas with every keyword, pagination, list_changed, slow calls, crashes,
// a process tree, stderr noise). It is built by the tests, never shipped.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/gnosis/gnosis/internal/stopreading"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ShapesSchema uses keywords mcp-go's typed ToolInputSchema does not carry.
// Its key order is deliberately not alphabetical.
const ShapesSchema = `{"type":"object","$schema":"https://json-schema.org/draft/2019-09/schema","properties":{"shape":{"oneOf":[{"$ref":"#/$defs/circle"},{"$ref":"#/definitions/square"}]}},"required":["shape"],"$defs":{"circle":{"type":"object","properties":{"r":{"type":"number","minimum":0}},"required":["r"]}},"definitions":{"square":{"type":"object","properties":{"side":{"type":"number"}},"required":["side"],"additionalProperties":false}}}`

func main() {
	page := flag.Int("page", 0, "tools per tools/list page (0: no pagination)")
	fillers := flag.Int("fillers", 0, "number of extra filler tools")
	sleep := flag.Duration("sleep", 0, "just sleep this long (used as a grandchild)")
	failStart := flag.Bool("fail-start", false, "exit at once with status 7")
	flag.Parse()

	if *sleep > 0 {
		time.Sleep(*sleep)
		return
	}
	if f := os.Getenv("TESTSERVER_STARTS"); f != "" {
		fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintf(fh, "%d\n", os.Getpid())
			fh.Close()
		}
	}
	fmt.Fprintf(os.Stderr, "testserver starting pid=%d greeting=%s\n", os.Getpid(), os.Getenv("TESTSERVER_GREETING"))
	if *failStart {
		fmt.Fprintln(os.Stderr, "testserver: failing on purpose")
		os.Exit(7)
	}

	var opts []server.ServerOption
	opts = append(opts, server.WithToolCapabilities(true))
	if *page > 0 {
		opts = append(opts, server.WithPaginationLimit(*page))
	}
	s := server.NewMCPServer("testserver", "1.0.0", opts...)
	stdin := stopreading.New(os.Stdin)
	s.AddTool(mcp.NewToolWithRawSchema("stop_reading", "Stops reading stdin, as a hung server does.", json.RawMessage(`{"type":"object"}`)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			stdin.Stop()
			fmt.Fprintln(os.Stderr, "stop_reading: no longer reading stdin")
			return mcp.NewToolResultText("stopped reading"), nil
		})

	s.AddTool(mcp.NewToolWithRawSchema("shapes", "Accepts a circle or a square.", json.RawMessage(ShapesSchema)), text("ok"))
	s.AddTool(mcp.NewToolWithRawSchema("echo", "Echoes its arguments.",
		json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, _ := json.Marshal(req.GetRawArguments())
			return mcp.NewToolResultText(string(b)), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("fail", "Always reports a tool error.", json.RawMessage(`{"type":"object"}`)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("it broke"), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("slow", "Waits ms milliseconds, or until cancelled.",
		json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"}}}`)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ms := req.GetInt("ms", 60000)
			fmt.Fprintln(os.Stderr, "slow: started")
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
				return mcp.NewToolResultText("slept"), nil
			case <-ctx.Done():
				fmt.Fprintln(os.Stderr, "slow: cancelled by client")
				return nil, ctx.Err()
			}
		})
	s.AddTool(mcp.NewToolWithRawSchema("crash", "Exits the server mid-call.", json.RawMessage(`{"type":"object"}`)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "crash: exiting now")
			time.Sleep(50 * time.Millisecond)
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("spawn", "Starts a long-sleeping grandchild and returns its pid.", json.RawMessage(`{"type":"object"}`)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			c := exec.Command(os.Args[0], "-sleep", "5m")
			if err := c.Start(); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText(strconv.Itoa(c.Process.Pid)), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("noisy", "Writes its text argument to stderr.",
		json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, req.GetString("text", ""))
			return mcp.NewToolResultText("written"), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("grow", "Adds a tool named by its argument (tools/list_changed follows).",
		json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name := req.GetString("name", "grown")
			go s.AddTool(mcp.NewToolWithRawSchema(name, "Added at run time.", json.RawMessage(`{"type":"object"}`)), text("grown"))
			return mcp.NewToolResultText("adding " + name), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("big", "Returns an image of about bytes bytes (base64).",
		json.RawMessage(`{"type":"object","properties":{"bytes":{"type":"integer","minimum":0}},"required":["bytes"]}`)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := req.GetInt("bytes", 0)
			data := strings.Repeat("QUJD", n/4+1)[:n]
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent(data, "image/png")}}, nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("hang_up", "Closes the server's stdout and keeps running.", json.RawMessage(`{"type":"object"}`)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "hang_up: closing stdout")
			os.Stdout.Close()
			select {}
		})
	for i := range *fillers {
		s.AddTool(mcp.NewToolWithRawSchema(fmt.Sprintf("filler_%02d", i), "A filler tool.", json.RawMessage(`{"type":"object"}`)), text("filler"))
	}

	if err := server.NewStdioServer(s).Listen(context.Background(), stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}

func text(s string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(s), nil
	}
}

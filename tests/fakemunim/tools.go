package main

import (
	"context"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gnosis/gnosis/tests/fakemunim/screen"
)

// schemas holds the raw input schema of every built-in tool, one file per
// tool named after it. Tests read the same files to check that the host hands
// them on byte for byte (after JSON compaction, which any JSON encoder does).
//
//go:embed schemas/*.json
var schemas embed.FS

// fake is the server's state: the MCP server (to add tools at run time), the
// call log, and the directory for state kept across restarts.
type fake struct {
	server   *server.MCPServer
	log      *callLog
	stateDir string
}

// descriptions of the built-in tools; the schema of each is schemas/<name>.json.
var descriptions = map[string]string{
	"screenshot": "Capture the screen as an image; 'bytes' sets the image size (test knob).",
	"click":      "Click a mouse button at a screen position.",
	"type_text":  "Type text into the focused element.",
	"press_keys": "Press up to three keys together.",
	"hotkey":     "Press a well-known shortcut.",
	"scroll":     "Scroll by a direction and amount, or to a point.",
	"move_mouse": "Move the mouse pointer to a point.",
	"drag":       "Drag from one point to another.",
	"slow":       "Sleep for ms milliseconds; honours cancellation.",
	"crash":      "Kill the server process in the middle of the call.",
	"noisy":      "Write many lines to stderr, then succeed.",
	"fail":       "Return a tool result with isError set.",
	"add_tool":   "Register a new tool and notify tools/list_changed.",
	"echo":       "Return the arguments unchanged.",
	"garbage":    "Write lines that are not JSON-RPC to stdout (the MCP stream), then succeed.",
}

// annotations are the behaviour hints of some built-in tools, so tests see
// titles and hints pass through (the others send none, as many servers do).
var annotations = map[string]mcp.ToolAnnotation{
	"screenshot": {Title: "Take a screenshot", ReadOnlyHint: mcp.ToBoolPtr(true), OpenWorldHint: mcp.ToBoolPtr(false)},
	"echo":       {Title: "Echo", ReadOnlyHint: mcp.ToBoolPtr(true), IdempotentHint: mcp.ToBoolPtr(true)},
	"click":      {Title: "Click", ReadOnlyHint: mcp.ToBoolPtr(false), DestructiveHint: mcp.ToBoolPtr(false)},
	"type_text":  {Title: "Type text", DestructiveHint: mcp.ToBoolPtr(true)},
}

func (f *fake) register(extra int) {
	handlers := map[string]func(context.Context, json.RawMessage) (*mcp.CallToolResult, error){
		"screenshot": f.screenshot,
		"click":      f.act("clicked"),
		"type_text":  f.act("typed"),
		"press_keys": f.act("pressed"),
		"hotkey":     f.act("pressed"),
		"scroll":     f.act("scrolled"),
		"move_mouse": f.act("moved"),
		"drag":       f.act("dragged"),
		"slow":       f.slow,
		"crash":      f.crash,
		"noisy":      f.noisy,
		"fail":       f.fail,
		"add_tool":   f.addTool,
		"echo":       echo,
		"garbage":    f.garbage,
	}
	var tools []server.ServerTool
	for name, h := range handlers {
		schema, err := schemas.ReadFile("schemas/" + name + ".json")
		if err != nil {
			panic(err) // embedded at build time: cannot fail
		}
		t := f.tool(name, descriptions[name], schema, h)
		if a, ok := annotations[name]; ok {
			t.Tool.Title, t.Tool.Annotations = a.Title, a
		}
		tools = append(tools, t)
	}
	for i := 0; i < extra; i++ {
		name := fmt.Sprintf("extra_%03d", i)
		tools = append(tools, f.tool(name, "Extra trivial tool "+strconv.Itoa(i)+"; returns its arguments.", simpleSchema, echo))
	}
	f.server.AddTools(tools...)
}

// simpleSchema is the schema of the extra and added tools.
var simpleSchema = json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"additionalProperties":false}`)

// tool wraps a handler so that every call is logged (after it ends, so the
// log says whether it was cancelled) with its raw arguments.
func (f *fake) tool(name, description string, schema json.RawMessage, h func(context.Context, json.RawMessage) (*mcp.CallToolResult, error)) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewToolWithRawSchema(name, description, schema),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := req.Params.RawArguments
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			res, err := h(ctx, args)
			f.log.record(name, args, ctx.Err() != nil)
			return res, err
		},
	}
}

// echo returns the arguments as text and as structured content.
func echo(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var structured map[string]any
	if err := json.Unmarshal(args, &structured); err != nil {
		return nil, fmt.Errorf("arguments are not an object: %w", err)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(string(args))},
		StructuredContent: structured,
	}, nil
}

// act is the result of a computer action: a short confirmation.
func (f *fake) act(verb string) func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
	return func(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(verb + " " + string(args)), nil
	}
}

// screenshot returns an image whose data (before base64) is exactly 'bytes'
// long: a PNG signature followed by a deterministic pattern, byte i being
// i mod 251 after the signature, so a test can rebuild it.
func (f *fake) screenshot(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Bytes  *int   `json:"bytes"`
		Format string `json:"format"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	n := 64 * 1024
	if a.Bytes != nil {
		n = *a.Bytes
	}
	mime := "image/png"
	if a.Format == "jpeg" {
		mime = "image/jpeg"
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent(imageData(n), mime)}}, nil
}

// images caches the base64 image of each size asked for, so a benchmark
// repeating a 16 MiB screenshot measures the transport, not this fake
// painting the picture again.
var images sync.Map // int -> string

func imageData(n int) string {
	if s, ok := images.Load(n); ok {
		return s.(string)
	}
	s := base64.StdEncoding.EncodeToString(screen.Bytes(n))
	images.Store(n, s)
	return s
}

// slow sleeps, returning early when the call is cancelled (the client sent
// notifications/cancelled, or the server is shutting down).
func (f *fake) slow(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		MS  int    `json:"ms"`
		Tag string `json:"tag"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	if a.Tag != "" && f.stateDir != "" {
		// The marker tells a test the call reached the server, so a cancel
		// sent after it must reach the server too.
		os.WriteFile(filepath.Join(f.stateDir, a.Tag+".started"), nil, 0o644)
	}
	t := time.NewTimer(time.Duration(a.MS) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return mcp.NewToolResultText(fmt.Sprintf("slept %d ms %s", a.MS, a.Tag)), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// crash exits the whole server process with status 3 while the call is in
// flight, after logging it (the log line is the proof it ran).
func (f *fake) crash(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		DelayNextStartMS int `json:"delay_next_start_ms"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	if a.DelayNextStartMS > 0 && f.stateDir != "" {
		path := filepath.Join(f.stateDir, "next-start-delay-ms")
		if err := os.WriteFile(path, []byte(strconv.Itoa(a.DelayNextStartMS)), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "fakemunim: %v\n", err)
		}
	}
	f.log.record("crash", args, false)
	fmt.Fprintln(os.Stderr, "fakemunim: crashing on request")
	os.Exit(3)
	return nil, nil
}

// noisy writes many lines to stderr; a host that let them reach its own
// stdout would corrupt the native-messaging stream.
func (f *fake) noisy(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Lines *int `json:"lines"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	n := 1000
	if a.Lines != nil {
		n = *a.Lines
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "fakemunim noise line %d {\"not\":\"a frame\"} \x00\xff\n", i)
		if b.Len() > 64*1024 {
			os.Stderr.WriteString(b.String())
			b.Reset()
		}
	}
	os.Stderr.WriteString(b.String())
	return mcp.NewToolResultText(fmt.Sprintf("wrote %d lines to stderr", n)), nil
}

// fail returns a tool-level failure.
func (f *fake) fail(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	if a.Message == "" {
		a.Message = "the tool failed on purpose"
	}
	return mcp.NewToolResultError(a.Message), nil
}

// addTool registers a new echo-like tool; mcp-go then sends
// notifications/tools/list_changed to the client.
func (f *fake) addTool(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	if a.Name == "" {
		return mcp.NewToolResultError("name is required"), nil
	}
	f.server.AddTools(f.tool(a.Name, "Added at run time; returns its arguments.", simpleSchema, echo))
	return mcp.NewToolResultText("added " + a.Name), nil
}

// addNamed adds a trivial tool for each name of the JSON array names, as
// servers with unusual names have them ("greet (structured)").
func (f *fake) addNamed(names string) error {
	var list []string
	if err := json.Unmarshal([]byte(names), &list); err != nil {
		return err
	}
	for _, n := range list {
		f.server.AddTools(f.tool(n, "A tool with a name to test; returns its arguments.", simpleSchema, echo))
	}
	return nil
}

// addRemoteRef adds a tool whose schema points at url with $ref, both at the
// top level of a property and under $defs. A client that honours the
// "never fetch what a schema points at" rule makes no request to url.
func (f *fake) addRemoteRef(url string) {
	ref, _ := json.Marshal(url)
	schema := json.RawMessage(`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object",` +
		`"properties":{"target":{"$ref":` + string(ref) + `},"other":{"$ref":"#/$defs/remote"}},` +
		`"$defs":{"remote":{"$ref":` + string(ref) + `}}}`)
	f.server.AddTools(f.tool("remote_ref", "A schema that refers to a remote document.", schema, echo))
}

// garbage writes to stdout, the MCP stream itself, what a badly behaved
// server prints there: a banner, a truncated object, a reply to a request
// never made, a notification of an unknown method.
func (f *fake) garbage(_ context.Context, _ json.RawMessage) (*mcp.CallToolResult, error) {
	os.Stdout.WriteString("fakemunim says hello on stdout\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":987654,\"result\":{\"content\":[]}}\n" +
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/unheard_of\",\"params\":{}}\n" +
		"\n")
	return mcp.NewToolResultText("wrote garbage to stdout"), nil
}

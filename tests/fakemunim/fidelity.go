package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The tools of this file exercise MCP beyond plain calls: progress
// notifications, a declared output schema, and a tool that can only be run
// as a task.

// weatherOutput is the outputSchema of weather.
var weatherOutput = json.RawMessage(`{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"}},"required":["temperature","conditions"]}`)

func (f *fake) registerFidelity() {
	progress := mcp.NewToolWithRawSchema("progress",
		"Report progress steps times (total = steps), every delay_ms, then succeed; without a progress token, say so.",
		schemaOf("progress"))
	weather := mcp.NewToolWithRawSchema("weather",
		"Return structured weather; mode wrong returns content that breaks the outputSchema, none returns no structuredContent.",
		schemaOf("weather"))
	weather.RawOutputSchema = weatherOutput
	research := mcp.NewToolWithRawSchema("research", "A tool that must be run as an MCP task.",
		schemaOf("research"))
	research.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}

	f.server.AddTools(
		server.ServerTool{Tool: progress, Handler: f.logged("progress", f.progress)},
		server.ServerTool{Tool: weather, Handler: f.logged("weather", f.weather)},
		server.ServerTool{Tool: research, Handler: f.logged("research", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("research requires task augmentation"), nil
		})},
	)
}

// schemaOf reads a tool's input schema from schemas/<name>.json, like the
// built-in tools, so the tests' byte-for-byte schema check covers these too.
func schemaOf(name string) json.RawMessage {
	b, err := schemas.ReadFile("schemas/" + name + ".json")
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	return b
}

// logged records every call of h in the call log.
func (f *fake) logged(name string, h server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := h(ctx, req)
		args := req.Params.RawArguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		f.log.record(name, args, ctx.Err() != nil)
		return res, err
	}
}

// progress sends notifications/progress for the call's token: steps of
// them, numbered 1..steps, as fast as the server can when delay_ms is 0.
func (f *fake) progress(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a struct {
		Steps   int    `json:"steps"`
		DelayMS int    `json:"delay_ms"`
		Message string `json:"message"`
	}
	if err := req.BindArguments(&a); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return mcp.NewToolResultText("no progress token"), nil
	}
	token := req.Params.Meta.ProgressToken
	srv := server.ServerFromContext(ctx)
	for i := 1; i <= a.Steps; i++ {
		if a.DelayMS > 0 {
			select {
			case <-time.After(time.Duration(a.DelayMS) * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		params := map[string]any{"progressToken": token, "progress": i, "total": a.Steps}
		if a.Message != "" {
			params["message"] = fmt.Sprintf("%s %d", a.Message, i)
		}
		if err := notify(ctx, srv, params); err != nil {
			return nil, fmt.Errorf("send progress: %w", err)
		}
	}
	// mcp-go writes notifications from a queue of their own, and results
	// straight away: a pause lets the last report out before the result,
	// as a server that writes in order would.
	if a.Steps > 0 {
		time.Sleep(50 * time.Millisecond)
	}
	return mcp.NewToolResultText(fmt.Sprintf("done %d steps", a.Steps)), nil
}

// weather returns the same weather in the three shapes mode asks for.
func (f *fake) weather(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a struct {
		Mode string `json:"mode"`
	}
	if err := req.BindArguments(&a); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	text := mcp.NewTextContent(`{"temperature":21.5,"conditions":"sunny"}`)
	switch a.Mode {
	case "wrong":
		return &mcp.CallToolResult{Content: []mcp.Content{text}, StructuredContent: map[string]any{"temperature": "warm", "conditions": "sunny"}}, nil
	case "none":
		return &mcp.CallToolResult{Content: []mcp.Content{text}}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{text}, StructuredContent: map[string]any{"temperature": 21.5, "conditions": "sunny"}}, nil
}

// notify sends a progress notification, waiting while mcp-go's outgoing
// queue is full (it holds a hundred): a flood is paced by the pipe, as a
// real server's would be, instead of failing the call.
func notify(ctx context.Context, srv *server.MCPServer, params map[string]any) error {
	for {
		err := srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params)
		if err == nil || !errors.Is(err, server.ErrNotificationChannelBlocked) {
			return err
		}
		select {
		case <-time.After(time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The tools of this file are added on request, for the benchmark and the
// schema tests: forecast (FAKEMUNIM_FORECAST=1) declares an outputSchema
// that describes every field of its ~8 KB structured result; huge_schema
// and cyclic_schema (FAKEMUNIM_BAD_SCHEMAS=1) have input schemas a client
// cannot use: 10 MB with 200,000 patterns, and a "$ref" cycle; and the
// tools a test describes in a file (FAKEMUNIM_SCHEMAS) have the schemas it
// chooses.

// forecastOutput is forecast's outputSchema.
var forecastOutput = json.RawMessage(`{"type":"object","properties":{"place":{"type":"string"},` +
	`"hours":{"type":"array","items":{"type":"object","properties":{"time":{"type":"string","format":"date-time"},` +
	`"temperature":{"type":"number"},"humidity":{"type":"integer","minimum":0,"maximum":100},` +
	`"conditions":{"enum":["sunny","cloudy","rain"]}},"required":["time","temperature","humidity","conditions"]}}},` +
	`"required":["place","hours"]}`)

func (f *fake) addForecast() {
	t := mcp.NewToolWithRawSchema("forecast", "An hourly forecast, hours entries (default 44: about 8 KB), as structured content.",
		json.RawMessage(`{"type":"object","properties":{"hours":{"type":"integer","minimum":1,"maximum":1000}},"additionalProperties":false}`))
	t.RawOutputSchema = forecastOutput
	f.server.AddTools(server.ServerTool{Tool: t, Handler: f.logged("forecast", forecast)})
}

type forecastHour struct {
	Time        string  `json:"time"`
	Temperature float64 `json:"temperature"`
	Humidity    int     `json:"humidity"`
	Conditions  string  `json:"conditions"`
}

func forecast(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a struct {
		Hours int `json:"hours"`
	}
	if err := req.BindArguments(&a); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	if a.Hours == 0 {
		a.Hours = 44
	}
	out := struct {
		Place string         `json:"place"`
		Hours []forecastHour `json:"hours"`
	}{Place: "Lyon"}
	for i := range a.Hours {
		out.Hours = append(out.Hours, forecastHour{fmt.Sprintf("2026-06-%02dT%02d:00:00Z", 1+i/24, i%24),
			18.5 + float64(i%7), 40 + i%50, []string{"sunny", "cloudy", "rain"}[i%3]})
	}
	text, _ := json.Marshal(out)
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(text))}, StructuredContent: out}, nil
}

// addBadSchemas adds huge_schema and cyclic_schema, which return their
// arguments if a client ever calls them.
func (f *fake) addBadSchemas() {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range 200_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string","pattern":"^[a-z]{1,8}-%d$"}`, i, i)
	}
	b.WriteString(`}}`)
	cyclic := json.RawMessage(`{"$ref":"#/$defs/a","$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"$ref":"#/$defs/a"}}}`)
	f.server.AddTools(
		f.tool("huge_schema", "A 10 MB input schema with 200,000 patterns.", json.RawMessage(b.String()), echo),
		f.tool("cyclic_schema", "An input schema whose $refs go round without consuming input.", cyclic, echo),
	)
}

// schemaTool is one tool of a FAKEMUNIM_SCHEMAS file.
type schemaTool struct {
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	// StructuredContent is what a call returns as structured content;
	// without it, a call returns a line that says how many bytes of
	// arguments it received (not the arguments: they may be 50 MB).
	StructuredContent json.RawMessage `json:"structuredContent"`
}

// addSchemaTools adds the tools the JSON file at path describes, by name.
func (f *fake) addSchemaTools(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var tools map[string]schemaTool
	if err := json.Unmarshal(b, &tools); err != nil {
		return err
	}
	for name, st := range tools {
		t := f.tool(name, "A tool with a schema a test chose.", st.InputSchema, received(st.StructuredContent))
		if len(st.OutputSchema) > 0 {
			t.Tool.RawOutputSchema = st.OutputSchema
		}
		f.server.AddTools(t)
	}
	return nil
}

// received answers a call with structured (when given) or with how many
// bytes of arguments it got.
func received(structured json.RawMessage) func(context.Context, json.RawMessage) (*mcp.CallToolResult, error) {
	return func(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
		r := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(fmt.Sprintf("received %d bytes of arguments", len(args)))}}
		if len(structured) > 0 {
			r.StructuredContent = structured
		}
		return r, nil
	}
}

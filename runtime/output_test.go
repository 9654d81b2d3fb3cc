package runtime

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/runtime/wire"
)

// weatherTool declares an outputSchema, as MCP servers with typed results do.
var weatherTool = Tool{
	Name:        "weather",
	InputSchema: json.RawMessage(`{"type":"object"}`),
	Raw: json.RawMessage(`{"name":"weather","inputSchema":{"type":"object"},` +
		`"outputSchema":{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"}},"required":["temperature","conditions"]}}`),
}

func TestStructuredContentIsCheckedAgainstTheOutputSchema(t *testing.T) {
	tests := []struct {
		name    string
		tool    Tool
		result  string
		wantErr *wire.Error // nil: the result is returned as is
	}{
		{"matching structuredContent", weatherTool,
			`{"content":[],"structuredContent":{"temperature":21.5,"conditions":"sunny"}}`, nil},
		{"wrong type", weatherTool,
			`{"content":[],"structuredContent":{"temperature":"warm","conditions":"sunny"}}`,
			&wire.Error{Code: wire.CodeExecutionError,
				Message: `w.weather returned structuredContent that does not match its outputSchema: /temperature: must be number, not string`,
				Details: OutputMismatch{Reason: "output-schema",
					Errors: []Violation{{Path: "/temperature", Keyword: "type", Message: "must be number, not string", KeywordLocation: "/properties/temperature/type"}},
					Result: json.RawMessage(`{"content":[],"structuredContent":{"temperature":"warm","conditions":"sunny"}}`)}}},
		{"missing required property", weatherTool,
			`{"content":[],"structuredContent":{"temperature":3}}`,
			&wire.Error{Code: wire.CodeExecutionError,
				Message: `w.weather returned structuredContent that does not match its outputSchema: /conditions: "conditions" is required`,
				Details: OutputMismatch{Reason: "output-schema",
					Errors: []Violation{{Path: "/conditions", Keyword: "required", Message: `"conditions" is required`, KeywordLocation: "/required"}},
					Result: json.RawMessage(`{"content":[],"structuredContent":{"temperature":3}}`)}}},
		{"no structuredContent at all", weatherTool,
			`{"content":[{"type":"text","text":"21.5 and sunny"}]}`,
			&wire.Error{Code: wire.CodeExecutionError,
				Message: `w.weather returned structuredContent that does not match its outputSchema: structuredContent is missing, but the tool declares an outputSchema`,
				Details: OutputMismatch{Reason: "output-schema",
					Errors: []Violation{{Path: "", Keyword: "required", Message: "structuredContent is missing, but the tool declares an outputSchema"}},
					Result: json.RawMessage(`{"content":[{"type":"text","text":"21.5 and sunny"}]}`)}}},
		{"a tool without an outputSchema may return anything", Tool{Name: "weather", Raw: json.RawMessage(`{"name":"weather","inputSchema":{"type":"object"}}`)},
			`{"content":[],"structuredContent":{"temperature":"warm"}}`, nil},
		{"a failed call is reported as the tool error, not as a mismatch", weatherTool,
			`{"content":[{"type":"text","text":"no sensor"}],"isError":true}`,
			&wire.Error{Code: wire.CodeExecutionError, Message: "w.weather failed: no sensor",
				Details: json.RawMessage(`{"content":[{"type":"text","text":"no sensor"}],"isError":true}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake("w", "w", tt.tool)
			f.result = json.RawMessage(tt.result)
			r := started(t, nil, f)
			got, err := r.Execute(context.Background(), Call{Capability: "w.weather"})
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("error %v, want the result", err)
				}
				if string(got) != tt.result {
					t.Errorf("result %s, want %s", got, tt.result)
				}
				return
			}
			if diff := cmp.Diff(tt.wantErr, err); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

var researchTool = Tool{
	Name:        "research",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"topic":{"type":"string"}},"required":["topic"]}`),
	Raw:         json.RawMessage(`{"name":"research","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}`),
}

func TestToolsThatRequireTasksAreMarkedAndRefused(t *testing.T) {
	optional := Tool{Name: "maybe", Raw: json.RawMessage(`{"name":"maybe","execution":{"taskSupport":"optional"}}`)}
	f := newFake("r", "r", researchTool, optional)
	r := started(t, nil, f)

	t.Run("listed as unavailable, with the reason", func(t *testing.T) {
		got := map[string]string{}
		for _, e := range r.List() {
			got[e.Name] = e.Unavailable
		}
		want := map[string]string{"r.research": TaskRequired, "r.maybe": "", MetaList: "", MetaDescribe: ""}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("unavailable (-want +got):\n%s", diff)
		}
		raw, err := r.Execute(context.Background(), Call{Capability: MetaList})
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Capabilities []map[string]any `json:"capabilities"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatal(err)
		}
		for _, c := range list.Capabilities {
			if c["name"] == "r.research" && c["unavailable"] != TaskRequired {
				t.Errorf("the meta-capability's entry: %v", c)
			}
			if _, ok := c["unavailable"]; ok && c["name"] != "r.research" {
				t.Errorf("%v is marked unavailable", c["name"])
			}
		}
	})

	t.Run("refused before dispatch, before argument checks", func(t *testing.T) {
		_, err := r.Execute(context.Background(), Call{Capability: "r.research", Arguments: json.RawMessage(`{}`)})
		want := &wire.Error{Code: wire.CodeExecutionError, Message: "r.research is unavailable: " + TaskRequired, Details: map[string]string{"reason": "task-required"}}
		if diff := cmp.Diff(want, err); diff != "" {
			t.Errorf("error (-want +got):\n%s", diff)
		}
		if n := f.callCount(); n != 0 {
			t.Errorf("the provider was called %d times", n)
		}
	})

	t.Run("optional task support runs as a plain call", func(t *testing.T) {
		if _, err := r.Execute(context.Background(), Call{Capability: "r.maybe"}); err != nil {
			t.Errorf("error %v", err)
		}
	})
}

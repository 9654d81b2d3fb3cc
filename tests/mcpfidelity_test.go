package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/testshort"
)

// listEntry is one capabilities.list entry.
type listEntry struct {
	Name        string `json:"name"`
	Unavailable string `json:"unavailable"`
}

func listEntries(t *testing.T, h *host) map[string]listEntry {
	t.Helper()
	r := h.call("capabilities.list", nil)
	wantOK(t, r)
	var list []listEntry
	r.field(t, "capabilities", &list)
	out := map[string]listEntry{}
	for _, e := range list {
		out[e.Name] = e
	}
	return out
}

const taskRequired = "requires MCP task augmentation, which gnosis-host does not support"

func TestStructuredContentMustMatchTheOutputSchema(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)

	t.Run("a matching result is returned", func(t *testing.T) {
		r := h.execute("computer.weather", map[string]any{"mode": "ok"})
		wantOK(t, r)
		if !strings.Contains(string(r.Result), `"structuredContent":{"conditions":"sunny","temperature":21.5}`) {
			t.Errorf("result: %s", r.Result)
		}
	})
	for mode, want := range map[string][]map[string]string{
		"wrong": {{"path": "/temperature", "keyword": "type", "message": "must be number, not string", "keywordLocation": "/properties/temperature/type"}},
		"none":  {{"path": "", "keyword": "required", "message": "structuredContent is missing, but the tool declares an outputSchema", "keywordLocation": ""}},
	} {
		t.Run("mode "+mode+" is EXECUTION_ERROR with the violations", func(t *testing.T) {
			r := h.execute("computer.weather", map[string]any{"mode": mode})
			wantError(t, r, "EXECUTION_ERROR")
			var d struct {
				Reason string              `json:"reason"`
				Errors []map[string]string `json:"errors"`
				Result json.RawMessage     `json:"result"`
			}
			if err := json.Unmarshal(r.Details, &d); err != nil {
				t.Fatalf("details: %v: %s", err, r.Details)
			}
			if d.Reason != "output-schema" || !strings.Contains(r.Message, "outputSchema") {
				t.Errorf("reason %q, message %q", d.Reason, r.Message)
			}
			if diff := cmp.Diff(want, d.Errors); diff != "" {
				t.Errorf("details.errors (-want +got):\n%s", diff)
			}
			if !strings.Contains(string(d.Result), `"content"`) {
				t.Errorf("details.result is not the tool's result: %s", d.Result)
			}
		})
	}
}

func TestATaskOnlyToolIsMarkedAndRefusedBeforeTheServer(t *testing.T) {
	testshort.Parallel(t)
	h, f := startStandard(t)
	entries := listEntries(t, h)
	if got := entries["computer.research"].Unavailable; got != taskRequired {
		t.Errorf("computer.research unavailable = %q, want %q", got, taskRequired)
	}
	for _, name := range []string{"computer.click", "computer.weather", "capabilities.list"} {
		if got := entries[name].Unavailable; got != "" {
			t.Errorf("%s is marked unavailable: %q", name, got)
		}
	}

	r := h.call("capabilities.describe", map[string]any{"name": "computer.research"})
	wantOK(t, r)
	var tool struct {
		Execution struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	}
	r.field(t, "tool", &tool)
	if tool.Execution.TaskSupport != "required" {
		t.Errorf("describe's tool lost execution.taskSupport: %s", clip(r.raw))
	}

	r = h.execute("computer.research", map[string]any{"topic": "x"})
	wantError(t, r, "EXECUTION_ERROR")
	if diff := cmp.Diff(`{"reason":"task-required"}`, string(r.Details)); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
	if !strings.Contains(r.Message, taskRequired) {
		t.Errorf("message %q does not say why", r.Message)
	}
	for _, c := range f.calls() {
		if c.Tool == "research" {
			t.Errorf("the server was called: %+v", c)
		}
	}
}

func TestInvalidArgumentsNameTheFailingKeyword(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	r := h.execute("computer.progress", map[string]any{"steps": -1, "extra": true})
	wantError(t, r, "INVALID_ARGUMENTS")
	var d struct {
		Errors []map[string]string `json:"errors"`
	}
	if err := json.Unmarshal(r.Details, &d); err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{
		{"path": "/extra", "keyword": "additionalProperties", "message": `"extra" is not allowed (additionalProperties is false); allowed: delay_ms, message, steps`, "keywordLocation": "/additionalProperties"},
		{"path": "/steps", "keyword": "minimum", "message": "must be at least 0", "keywordLocation": "/properties/steps/minimum"},
	}
	if diff := cmp.Diff(want, d.Errors); diff != "" {
		t.Errorf("details.errors (-want +got):\n%s", diff)
	}
}

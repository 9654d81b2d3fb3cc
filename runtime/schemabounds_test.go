package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/testwait"
	"github.com/gnosis/gnosis/runtime/wire"
)

func TestToolsWhoseSchemaCannotBeUsedAreUnavailableAndNeverCalled(t *testing.T) {
	tools := []Tool{
		{Name: "huge", InputSchema: json.RawMessage(`{"description":"` + strings.Repeat("x", 2<<20) + `"}`)},
		{Name: "cyclic", InputSchema: json.RawMessage(`{"$ref":"#/$defs/a","$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"$ref":"#/$defs/a"}}}`)},
		{Name: "bad_output", InputSchema: json.RawMessage(`{"type":"object"}`),
			Raw: json.RawMessage(`{"name":"bad_output","outputSchema":{"$ref":"#"}}`)},
		clickTool,
	}
	f := newFake("munim", "computer", tools...)
	r := started(t, nil, f)
	want := map[string]string{
		"computer.huge":       fmt.Sprintf("its inputSchema cannot be used: schema is %d bytes, more than the 1048576 allowed", len(tools[0].InputSchema)),
		"computer.cyclic":     `its inputSchema cannot be used: the schema at /$defs/a refers to itself without descending into the value, so it cannot be evaluated`,
		"computer.bad_output": `its outputSchema cannot be used: the schema at the root refers to itself without descending into the value, so it cannot be evaluated`,
	}
	for name, why := range want {
		_, err := r.Execute(context.Background(), Call{Capability: name, Arguments: json.RawMessage(`{}`)})
		var e *wire.Error
		if !errors.As(err, &e) || e.Code != wire.CodeExecutionError || e.Message != name+" is unavailable: "+why {
			t.Errorf("%s: execute = %v, want EXECUTION_ERROR %q", name, err, name+" is unavailable: "+why)
		} else if d, _ := json.Marshal(e.Details); string(d) != `{"reason":"invalid-schema"}` {
			t.Errorf("%s: details %s", name, d)
		}
	}
	if n := f.callCount(); n != 0 {
		t.Errorf("the server was called %d times", n)
	}
	// The list is rebuilt when the background compilation ends.
	testwait.Until(t, 10*time.Second, func() error {
		got := map[string]string{}
		for _, s := range r.List() {
			if s.Unavailable != "" {
				got[s.Name] = s.Unavailable
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			return fmt.Errorf("unavailable capabilities (-want +got):\n%s", diff)
		}
		return nil
	})
	// Once listed unavailable, a call is refused before any schema work.
	_, err := r.Execute(context.Background(), Call{Capability: "computer.cyclic"})
	var e *wire.Error
	if !errors.As(err, &e) || e.Code != wire.CodeExecutionError {
		t.Errorf("cyclic after listing: %v", err)
	}
}

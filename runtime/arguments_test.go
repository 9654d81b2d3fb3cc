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

func TestABooleanWrittenAsAStringIsInvalidArgumentsAndNeverReachesTheServer(t *testing.T) {
	tool := Tool{Name: "toggle", InputSchema: json.RawMessage(`{"type":"object","properties":{"on":{"type":"boolean"}},"required":["on"]}`)}
	f := newFake("munim", "computer", tool)
	r := started(t, nil, f)
	for _, args := range []string{`{"on":"true"}`, `{"on":"F"}`, `{"on":"1"}`} {
		_, err := r.Execute(context.Background(), Call{Capability: "computer.toggle", Arguments: json.RawMessage(args)})
		var we *wire.Error
		if !errors.As(err, &we) || we.Code != wire.CodeInvalidArguments {
			t.Errorf("%s: err %v, want INVALID_ARGUMENTS", args, err)
		}
	}
	if n := f.callCount(); n != 0 {
		t.Errorf("the server was called %d times", n)
	}
	if _, err := r.Execute(context.Background(), Call{Capability: "computer.toggle", Arguments: json.RawMessage(`{"on":true}`)}); err != nil {
		t.Errorf("a real boolean: %v", err)
	}
}

func TestOutputCheckingIsAsStrictAsInputChecking(t *testing.T) {
	tool := Tool{Name: "state", Raw: json.RawMessage(`{"name":"state","inputSchema":{"type":"object"},` +
		`"outputSchema":{"type":"object","properties":{"on":{"type":"boolean"},"count":{"type":"integer"}},"required":["on","count"]}}`)}
	f := newFake("munim", "computer", tool)
	r := started(t, nil, f)
	for _, tc := range []struct {
		result string
		ok     bool
	}{
		{`{"content":[],"structuredContent":{"on":true,"count":1e20}}`, true},
		{`{"content":[],"structuredContent":{"on":"true","count":1}}`, false},
	} {
		f.mu.Lock()
		f.result = json.RawMessage(tc.result)
		f.mu.Unlock()
		_, err := r.Execute(context.Background(), Call{Capability: "computer.state"})
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok=%v", tc.result, err, tc.ok)
		}
	}
}

// TestNumbersOfAnySizeReachTheServerAsWritten: 1e309 and 2^64 are valid
// JSON numbers, so a call with them is checked exactly and sent with its
// bytes unchanged; a schema bound of 1e309 is an ordinary bound.
func TestNumbersOfAnySizeReachTheServerAsWritten(t *testing.T) {
	tool := Tool{Name: "scale", InputSchema: json.RawMessage(`{"type":"object","properties":{"f":{"type":"number","maximum":1e309},` +
		`"n":{"type":"integer","maximum":9223372036854775807}}}`)}
	f := newFake("munim", "computer", tool)
	r := started(t, nil, f)
	args := `{"f":1e309,"n":9223372036854775807}`
	if _, err := r.Execute(context.Background(), Call{Capability: "computer.scale", Arguments: json.RawMessage(args)}); err != nil {
		t.Fatalf("execute: %v", err)
	}
	if got := f.lastCall().Args; got != args {
		t.Errorf("the server got %s, want %s", got, args)
	}
	_, err := r.Execute(context.Background(), Call{Capability: "computer.scale", Arguments: json.RawMessage(`{"n":9223372036854775808}`)})
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeInvalidArguments {
		t.Fatalf("2^63 against a maximum of 2^63-1: %v, want INVALID_ARGUMENTS", err)
	}
	want := ValidationDetails{Errors: []Violation{{Path: "/n", Keyword: "maximum", Message: "must be at most 9223372036854775807", KeywordLocation: "/properties/n/maximum"}}}
	if diff := cmp.Diff(want, we.Details); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
}

// TestASchemaTheHostCannotUseIsNamedInDescribeWithTheReason: a pattern
// that is not a regular expression makes the tool unavailable, and
// capabilities.describe says why, as capabilities.list does.
func TestASchemaTheHostCannotUseIsNamedInDescribeWithTheReason(t *testing.T) {
	tool := Tool{Name: "find", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","pattern":"(unclosed"}}}`)}
	f := newFake("munim", "computer", tool)
	r := started(t, nil, f)
	_, err := r.Execute(context.Background(), Call{Capability: "computer.find", Arguments: json.RawMessage(`{"q":"x"}`)})
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeExecutionError || !strings.Contains(we.Message, `/properties/q/pattern: "(unclosed" is not an ECMA-262 regular expression`) {
		t.Fatalf("execute: %v, want EXECUTION_ERROR naming the pattern", err)
	}
	testwait.Until(t, 10*time.Second, func() error {
		c, err := r.Describe("computer.find")
		if err != nil {
			return err
		}
		if !strings.Contains(c.Unavailable, `its inputSchema cannot be used: /properties/q/pattern: "(unclosed" is not an ECMA-262 regular expression`) {
			return fmt.Errorf("describe unavailable = %q", c.Unavailable)
		}
		return nil
	})
	if n := f.callCount(); n != 0 {
		t.Errorf("the server was called %d times", n)
	}
}

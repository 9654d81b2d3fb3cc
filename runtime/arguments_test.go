package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

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

package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/runtime/wire"
)

var askPolicy = Policy{Origins: map[string]Rule{
	"https://chat.example": {Allow: []string{"computer.type_text"}, Ask: []string{"computer.click"}},
}}

func TestAskCallsRunOnlyWhenTheUserApproves(t *testing.T) {
	hinted := clickTool
	hinted.Title = "Click"
	hinted.Annotations = json.RawMessage(`{"destructiveHint":true}`)
	f := newFake("munim", "computer", hinted, typeTool)
	r := started(t, []Option{WithPolicy(askPolicy)}, f)
	args := json.RawMessage(`{"x":1,"y":2}`)
	errDenied := Forbidden(ReasonDenied, "no")

	tests := []struct {
		name      string
		approve   func(context.Context, Approval) error
		args      json.RawMessage
		want      wire.Code
		wantAsked bool
		wantCalls int
	}{
		{"approved: runs once", func(context.Context, Approval) error { return nil }, args, "", true, 1},
		{"denied: FORBIDDEN, never sent", func(context.Context, Approval) error { return errDenied }, args, wire.CodeForbidden, true, 0},
		{"no approver: FORBIDDEN", nil, args, wire.CodeForbidden, false, 0},
		{"invalid arguments are refused before the user is asked", func(context.Context, Approval) error { return nil }, json.RawMessage(`{"x":-1}`), wire.CodeInvalidArguments, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := f.callCount()
			var asked []Approval
			call := Call{Capability: "computer.click", Origin: "https://chat.example", Arguments: tc.args}
			if tc.approve != nil {
				call.Approve = func(ctx context.Context, a Approval) error { asked = append(asked, a); return tc.approve(ctx, a) }
			}
			_, err := r.Execute(context.Background(), call)
			if got := codeOrOK(err); got != tc.want {
				t.Fatalf("code = %q, want %q (%v)", got, tc.want, err)
			}
			if calls := f.callCount() - before; calls != tc.wantCalls {
				t.Errorf("provider called %d times, want %d", calls, tc.wantCalls)
			}
			if !tc.wantAsked {
				if len(asked) != 0 {
					t.Errorf("asked %d times, want never", len(asked))
				}
				return
			}
			want := []Approval{{Origin: "https://chat.example", Capability: "computer.click", Arguments: args, Title: "Click", Annotations: hinted.Annotations}}
			if diff := cmp.Diff(want, asked); diff != "" {
				t.Errorf("approval (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAllowedCallsAreNotAsked(t *testing.T) {
	r := started(t, []Option{WithPolicy(askPolicy)}, newFake("munim", "computer", clickTool, typeTool))
	call := Call{Capability: "computer.type_text", Origin: "https://chat.example", Arguments: json.RawMessage(`{"text":"x"}`),
		Approve: func(context.Context, Approval) error { return errors.New("must not be asked") }}
	if _, err := r.Execute(context.Background(), call); err != nil {
		t.Fatal(err)
	}
}

func TestNotGrantedSaysWhere(t *testing.T) {
	r := started(t, []Option{WithPolicy(askPolicy)}, newFake("munim", "computer", clickTool, typeTool))
	tests := []struct{ origin, want string }{
		{"https://other.example", `origin "https://other.example" may not execute "computer.click": allow it for this site on the Gnosis options page`},
		{"", `calls without a page origin may not execute "computer.click": allow it under policy.default in the host's config`},
	}
	for _, tc := range tests {
		_, err := r.Execute(context.Background(), Call{Capability: "computer.click", Origin: tc.origin, Arguments: json.RawMessage(`{"x":1,"y":2}`)})
		var e *wire.Error
		if !errors.As(err, &e) || e.Message != tc.want || !cmp.Equal(e.Details, ForbiddenDetails{Reason: ReasonNotGranted}) {
			t.Errorf("origin %q: %v, want %q with reason not-granted", tc.origin, err, tc.want)
		}
	}
}

func TestSetPolicyTakesEffectForLaterCalls(t *testing.T) {
	r := started(t, []Option{WithPolicy(Policy{})}, newFake("munim", "computer", clickTool))
	call := Call{Capability: "computer.click", Origin: "https://chat.example", Arguments: json.RawMessage(`{"x":1,"y":2}`)}
	if _, err := r.Execute(context.Background(), call); wire.CodeOf(err) != wire.CodeForbidden {
		t.Fatalf("before the grant: %v, want FORBIDDEN", err)
	}
	r.SetPolicy(Policy{Origins: map[string]Rule{"https://chat.example": {Allow: []string{"computer.click"}}}})
	if _, err := r.Execute(context.Background(), call); err != nil {
		t.Fatalf("after the grant: %v", err)
	}
}

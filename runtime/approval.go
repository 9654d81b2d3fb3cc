package runtime

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gnosis/gnosis/runtime/wire"
)

// Approval is what the user is shown before a call the policy marks "ask"
// runs: who asks, for what, with exactly which arguments.
type Approval struct {
	Origin     string
	Capability string
	// Arguments are the validated arguments that will be sent, as received.
	Arguments json.RawMessage
	// Title and Annotations come from the tool as its provider listed it.
	Title       string
	Annotations json.RawMessage
}

// Reasons in the Details of a FORBIDDEN execute, so a client can tell the
// user why without parsing the message.
const (
	ReasonNotGranted = "not-granted" // the policy denies it
	ReasonDenied     = "denied"      // the user said no
	ReasonTimeout    = "timeout"     // nobody answered in time
	ReasonNoApprover = "no-approver" // the caller cannot ask the user
)

// ForbiddenDetails is the Details of a FORBIDDEN execute.
type ForbiddenDetails struct {
	Reason string `json:"reason"`
}

// Forbidden builds the FORBIDDEN error of an execute, with its reason.
func Forbidden(reason, format string, args ...any) *wire.Error {
	return &wire.Error{Code: wire.CodeForbidden, Message: fmt.Sprintf(format, args...), Details: ForbiddenDetails{Reason: reason}}
}

func notGranted(c Call) *wire.Error {
	if c.Origin == "" {
		return Forbidden(ReasonNotGranted, "calls without a page origin may not execute %q: allow it under policy.default in the host's config", c.Capability)
	}
	return Forbidden(ReasonNotGranted, "origin %q may not execute %q: allow it for this site on the Gnosis options page", c.Origin, c.Capability)
}

// approve asks the user through c.Approve.
func (r *Runtime) approve(ctx context.Context, c Call, e *entry, args json.RawMessage) error {
	if c.Approve == nil {
		return Forbidden(ReasonNoApprover, "%q needs the user's approval for each call, and this caller cannot ask", c.Capability)
	}
	a := Approval{Origin: c.Origin, Capability: c.Capability, Arguments: args, Title: e.cap.Title, Annotations: e.cap.Annotations}
	if err := c.Approve(ctx, a); err != nil {
		return err
	}
	r.log.Info().Str("origin", c.Origin).Str("capability", c.Capability).Msg("approved by the user")
	return nil
}

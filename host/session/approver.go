package session

import (
	"context"

	"github.com/gnosis/gnosis/runtime"
)

// Approver asks the user whether a call the policy marks "ask" may run. It
// gets the execute request (to send the question as an event of that
// request) and what to show; it returns nil when the user allowed the call,
// or an error that becomes the execute's failure reply.
type Approver func(ctx context.Context, c *Call, a runtime.Approval) error

// WithApprover sets how the session asks the user. Without one, calls the
// policy marks "ask" are refused.
func WithApprover(a Approver) Option { return func(s *Session) { s.approver = a } }

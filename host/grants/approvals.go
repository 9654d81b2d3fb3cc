package grants

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
)

// DefaultAskTimeout is how long a call marked "ask" waits for the user
// before it is denied.
const DefaultAskTimeout = 60 * time.Second

// approvalEvent is the event sent on the execute request that waits.
type approvalEvent struct {
	Event       string          `json:"event"`
	Origin      string          `json:"origin"`
	Capability  string          `json:"capability"`
	Arguments   json.RawMessage `json:"arguments"`
	Title       string          `json:"title,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	TimeoutMs   int64           `json:"timeoutMs"`
}

// approvals holds the calls waiting for the user, by execute request id.
type approvals struct {
	timeout time.Duration
	mu      sync.Mutex
	pending map[string]chan bool
}

// Ask sends the approval event on the execute request id (through emit) and
// waits for approve, the timeout, or ctx. It returns nil when the user
// allowed the call.
func (g *Grants) Ask(ctx context.Context, id json.RawMessage, emit func(any) error, a runtime.Approval) error {
	key := idKey(id)
	answer := make(chan bool, 1)
	g.ask.mu.Lock()
	if _, dup := g.ask.pending[key]; dup {
		g.ask.mu.Unlock()
		return runtime.Forbidden(runtime.ReasonDenied, "a call with this request id is already waiting for approval")
	}
	g.ask.pending[key] = answer
	g.ask.mu.Unlock()
	defer func() {
		g.ask.mu.Lock()
		delete(g.ask.pending, key)
		g.ask.mu.Unlock()
	}()

	timeout := g.ask.timeout
	args := a.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	err := emit(approvalEvent{
		Event: "approval", Origin: a.Origin, Capability: a.Capability, Arguments: args,
		Title: a.Title, Annotations: a.Annotations, TimeoutMs: timeout.Milliseconds(),
	})
	if err != nil {
		return runtime.Forbidden(runtime.ReasonNoApprover, "could not ask the user about %q: %v", a.Capability, err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case allow := <-answer:
		if !allow {
			g.log.Info().Str("origin", a.Origin).Str("capability", a.Capability).Msg("denied by the user")
			return runtime.Forbidden(runtime.ReasonDenied, "the user denied %q for %s", a.Capability, a.Origin)
		}
		return nil
	case <-timer.C:
		g.log.Info().Str("origin", a.Origin).Str("capability", a.Capability).Msg("approval timed out")
		return runtime.Forbidden(runtime.ReasonTimeout, "no decision about %q came within %s, so the call was denied", a.Capability, timeout)
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return &wire.Error{Code: wire.CodeTimeout, Message: "the call timed out while waiting for approval", Err: ctx.Err()}
		}
		return &wire.Error{Code: wire.CodeCancelled, Message: "the call was cancelled while waiting for approval", Err: ctx.Err()}
	}
}

type approveParams struct {
	ID    json.RawMessage `json:"id"`
	Allow *bool           `json:"allow"`
}

type approveResult struct {
	Found bool `json:"found"`
}

// approve delivers the user's answer to the call waiting under params.id.
func (g *Grants) approve(params json.RawMessage) (any, error) {
	var p approveParams
	if err := json.Unmarshal(params, &p); err != nil || len(p.ID) == 0 || p.Allow == nil {
		return nil, wire.Errorf(wire.CodeInvalidRequest, `params of approve must be {"id": <the execute request's id>, "allow": true|false}`)
	}
	key := idKey(p.ID)
	g.ask.mu.Lock()
	ch, ok := g.ask.pending[key]
	if ok {
		delete(g.ask.pending, key) // one answer per question
	}
	g.ask.mu.Unlock()
	if ok {
		ch <- *p.Allow
	}
	return approveResult{Found: ok}, nil
}

// idKey is the id's JSON text without insignificant white space, so the id
// echoed in approve matches the execute's id as the session saw it.
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gnosis/gnosis/runtime/wire"
)

// A call for a provider that is starting waits for it instead of being
// refused: a provider starts when the host starts (the browser started it,
// or started it again after its service worker restarted) and after it
// crashed, and the first call often comes at once. The call goes on when the
// provider is ready, and is refused PROVIDER_UNAVAILABLE only when the start
// failed (with the provider's reason) or did not end in time.

// StartDeadliner is a provider that says when its current start attempt
// gives up (mcpprovider.Provider does: its startTimeout after the attempt
// began). A call waits for a starting provider until then, and a little
// longer for the provider to report why it gave up.
type StartDeadliner interface {
	// StartDeadline is when the current start attempt gives up; the zero
	// time when the provider does not know (it has not begun one yet).
	StartDeadline() time.Time
}

// DefaultStartWait bounds the wait for a starting provider that does not
// say when its start gives up.
const DefaultStartWait = 30 * time.Second

// startGrace is how long past its start deadline a call waits for the
// provider to report how its start ended: it stops the server and reads its
// last stderr lines first.
const startGrace = 2 * time.Second

// startingError is admit's answer for a provider that is starting: the call
// may wait for it (awaitStart).
type startingError struct{ p Provider }

func (e *startingError) Error() string { return unavailable(e.p).Error() }

// starting returns the provider an admit error says is starting, else nil.
func starting(err error) Provider {
	var s *startingError
	if errors.As(err, &s) {
		return s.p
	}
	return nil
}

// notReady is admit's error for a provider that is not ready: a
// startingError while it starts, else PROVIDER_UNAVAILABLE with its reason.
func notReady(p Provider) error {
	if p.Status().State == StateStarting {
		return &startingError{p}
	}
	return unavailable(p)
}

// awaitStart waits until p is no longer starting as the runtime sees it
// (its tools are then registered), ctx ends, or p's start deadline and the
// grace after it pass.
func (r *Runtime) awaitStart(ctx context.Context, p Provider) error {
	deadline := time.Now().Add(DefaultStartWait)
	if d, ok := p.(StartDeadliner); ok {
		if t := d.StartDeadline(); !t.IsZero() {
			deadline = t
		}
	}
	timer := time.NewTimer(time.Until(deadline) + startGrace)
	defer timer.Stop()
	for {
		r.mu.Lock()
		st := r.state[p.Name()].status
		changed := r.changed
		r.mu.Unlock()
		if st.State != StateStarting {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return &wire.Error{Code: wire.CodeTimeout, Message: fmt.Sprintf("the call timed out while provider %q was starting", p.Name()), Err: ctx.Err()}
			}
			return &wire.Error{Code: wire.CodeCancelled, Message: fmt.Sprintf("the call was cancelled while provider %q was starting", p.Name()), Err: ctx.Err()}
		case <-timer.C:
			e := unavailable(p)
			if p.Status().State == StateStarting {
				e.Message = fmt.Sprintf("provider %q is still starting after its start timeout", p.Name())
			}
			return e
		}
	}
}

// unstarted is err with a startingError made PROVIDER_UNAVAILABLE: a call
// that has waited once for its provider does not wait again.
func unstarted(err error) error {
	if p := starting(err); p != nil {
		return unavailable(p)
	}
	return err
}

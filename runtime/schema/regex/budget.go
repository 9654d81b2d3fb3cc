package regex

import (
	"errors"
	"runtime"
)

// Budget is the work a caller lets matches do, in steps, shared by every
// match (and, for the validator, every schema evaluation) of one call. A
// step is one instruction of an engine run on one position: a character
// tested, a branch taken or given up, a zero-width test, a register saved.
type Budget struct {
	// Steps is what remains; a match that needs more fails with ErrSteps
	// and leaves it at 0.
	Steps int64
	// Done, when closed, stops the work at the next check (every
	// pollEvery steps) with ErrStopped: a cancelled call or a host that is
	// shutting down does not finish a long match.
	Done <-chan struct{}
	poll int64
}

// Errors of a match that could not be decided.
var (
	// ErrSteps is a match that needs more steps than the budget has.
	ErrSteps = errors.New("the step budget is spent")
	// ErrMemory is a backtracking match that needs more saved positions
	// than its bound (memory.go).
	ErrMemory = errors.New("backtracking needs more memory than this value's length allows")
	// ErrStopped is a match stopped by Budget.Done.
	ErrStopped = errors.New("stopped")
)

const pollEvery = 1 << 14

// Spend takes n steps from b: nil, or ErrSteps when fewer remain (Steps
// is then 0), or ErrStopped once Done is closed.
func (b *Budget) Spend(n int64) error {
	if b.Steps < n {
		b.Steps = 0
		return ErrSteps
	}
	b.Steps -= n
	if b.poll += n; b.poll >= pollEvery {
		b.poll = 0
		// A long validation shares its processor: whatever waits to run
		// there (a reply to write) runs now, not at the next preemption.
		runtime.Gosched()
		if b.Done != nil {
			select {
			case <-b.Done:
				return ErrStopped
			default:
			}
		}
	}
	return nil
}

package schema

import (
	"errors"
	"fmt"

	"github.com/gnosis/gnosis/runtime/schema/regex"
)

// Budget is what one validation may spend, in steps (regex.Budget): every
// schema applied to a value is a step, and so is every step of a pattern
// match, every item compared by uniqueItems, enum and const, and every 16
// bytes a format or a length reads. One budget covers all the work of a
// call, so a schema whose references multiply (an allOf of two "$ref"s to
// the next level, 2^N evaluations) or a thousand values each of which a
// pattern struggles on end in a refusal, the same one on a busy machine
// as on an idle one.
type Budget = regex.Budget

// The budget of a value of n bytes of JSON is BaseSteps + StepsPerByte×n
// (StepsFor): a value's legitimate work grows with its size, while an
// exponential schema or pattern outgrows any such bound at once. On this
// project's 2-core test machine a step is 5 to 20 ns, so the base is a
// few tens of milliseconds of work and a 1 MB value may take a few
// seconds at most.
const (
	BaseSteps    = 4_000_000
	StepsPerByte = 256
)

// StepsFor is the budget of a value of n bytes of JSON.
func StepsFor(n int) int64 { return BaseSteps + StepsPerByte*int64(n) }

// ErrTooCostly matches (errors.Is) a validation that could not finish
// within its budget: its steps, or the memory a backtracking match may
// hold (a multiple of the value's length). The value may be valid; the
// host cannot tell at that cost.
var ErrTooCostly = errors.New("validation needs more than its budget")

// ErrStopped is a validation stopped because its Budget's Done channel
// closed (the call was cancelled, or the host is shutting down).
var ErrStopped = regex.ErrStopped

// CostError is a validation that ran past its budget, and where.
type CostError struct {
	// Budget is the steps the value was given.
	Budget int64
	// Path, Keyword and KeywordLocation are where it stopped: the value,
	// the keyword applied to it, and the schema as applied.
	Path, Keyword, KeywordLocation string
	// Memory is set when a pattern match needed more memory than its
	// value allows, rather than more steps.
	Memory bool
}

func (e *CostError) Error() string {
	at := "at the root"
	if e.Path != "" {
		at = "at " + e.Path
	}
	if e.Memory {
		return fmt.Sprintf("a pattern match (%s, %q) needs more memory than the value's length allows", at, e.Keyword)
	}
	return fmt.Sprintf("checking it takes more than the %d steps a value of its size is given (it stopped %s, in %q)", e.Budget, at, e.Keyword)
}

// Is makes errors.Is(err, ErrTooCostly) true.
func (e *CostError) Is(target error) bool { return target == ErrTooCostly }

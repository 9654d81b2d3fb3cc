package testwait

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a testing.TB whose Fatalf records the message and ends the
// goroutine, as the real one does.
type recorder struct {
	testing.TB
	mu  sync.Mutex
	msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.msg = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	// The real Fatalf ends the goroutine (runtime.Goexit); the panic ends it
	// too, and run recovers it.
	panic(errFatal)
}

var errFatal = errors.New("fatal")

// run calls Until on r in its own goroutine and returns the failure message,
// "" when Until returned.
func run(timeout time.Duration, cond func() error) string {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil && p != errFatal {
				panic(p)
			}
		}()
		Until(r, timeout, cond)
	}()
	<-done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.msg
}

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	msg := run(10*time.Second, func() error {
		calls++
		if calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if msg != "" || calls != 3 {
		t.Errorf("Until failed with %q after %d calls, want success on the 3rd", msg, calls)
	}
}

func TestUntilFailsWithTheLastReasonAfterTheTimeout(t *testing.T) {
	calls := 0
	start := time.Now()
	msg := run(50*time.Millisecond, func() error {
		calls++
		return fmt.Errorf("attempt %d: not ready", calls)
	})
	if elapsed := time.Since(start); elapsed < 50*time.Millisecond {
		t.Errorf("Until gave up after %v, before its timeout", elapsed)
	}
	if want := fmt.Sprintf("attempt %d: not ready", calls); !strings.Contains(msg, want) || !strings.Contains(msg, "50ms") {
		t.Errorf("failure %q, want the timeout and the last reason %q", msg, want)
	}
}

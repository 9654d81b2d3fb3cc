// Package testwait waits, in tests, for something that happens on another
// goroutine or in another process: a reply, a log line, a file, a state.
//
// Tests poll with Until instead of writing their own deadline loops, so every
// wait has a bound, says on failure what it was waiting for, and checks the
// condition once more at the deadline rather than failing a test whose
// condition became true during the last sleep.
package testwait

import (
	"testing"
	"time"
)

// Interval is how long Until sleeps between two checks.
const Interval = 10 * time.Millisecond

// Until calls cond until it returns nil, and fails t when it still returns
// an error after timeout; the failure quotes cond's last error, which should
// say what is missing ("munim is starting, want ready"). Call it from the
// test's goroutine.
func Until(t testing.TB, timeout time.Duration, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after %v: %v", timeout, err)
		}
		time.Sleep(Interval)
	}
}

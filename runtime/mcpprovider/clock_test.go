package mcpprovider

import (
	"sync"
	"time"
)

// testClock is a clock whose waits end when the test fires them: a test
// proves "Close waits the grace, then kills" without bounding how long a
// loaded machine takes. Now is the wall clock (deadlines still pass).
type testClock struct {
	mu    sync.Mutex
	waits map[time.Duration][]chan time.Time
}

func newTestClock() *testClock { return &testClock{waits: map[time.Duration][]chan time.Time{}} }

func (c *testClock) Now() time.Time { return time.Now() }

func (c *testClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	c.waits[d] = append(c.waits[d], ch)
	c.mu.Unlock()
	return ch
}

// waiting reports whether something waits for d.
func (c *testClock) waiting(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waits[d]) > 0
}

// fire ends every wait for d.
func (c *testClock) fire(d time.Duration) {
	c.mu.Lock()
	waits := c.waits[d]
	delete(c.waits, d)
	c.mu.Unlock()
	for _, ch := range waits {
		ch <- time.Now()
	}
}

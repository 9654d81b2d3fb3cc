package mcpprovider

import "time"

// clock is the time supervision waits on: the grace a stopping child gets,
// the restart backoff, how long a child has been up. The wall clock serves;
// a test gives its own (withClock) to decide when a wait ends instead of
// bounding how long the machine takes.
type clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// wallClock is the real time.
type wallClock struct{}

func (wallClock) Now() time.Time                         { return time.Now() }
func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// withClock sets the clock supervision waits on (tests).
func withClock(c clock) Option { return func(p *Provider) { p.clock = c } }

package session

import (
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gnosis/gnosis/runtime"
)

// ProgressInterval is the shortest time between two progress events of one
// request: at most 20 a second reach the browser, however chatty the server.
const ProgressInterval = 50 * time.Millisecond

// progressEvent is the event of docs/protocol.md's "Progress" section; the
// session puts the request's id first.
type progressEvent struct {
	Event    string   `json:"event"`
	Progress float64  `json:"progress"`
	Total    *float64 `json:"total,omitempty"`
	Message  string   `json:"message,omitempty"`
}

// maxProgressMessage bounds a progress message, so every event fits in a
// frame whatever the server says.
const maxProgressMessage = 1024

func newProgressEvent(p runtime.Progress) progressEvent {
	msg := p.Message
	if len(msg) > maxProgressMessage {
		cut := maxProgressMessage
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return progressEvent{Event: "progress", Progress: p.Progress, Total: p.Total, Message: msg}
}

// coalescer passes progress reports on to emit, at most one per interval
// and always the latest: reports that arrive while it waits replace each
// other. The last report is never lost: it goes out when the interval ends,
// or at the latest when close is called. emit runs on one goroutine at a
// time, in report order, never after close returns.
//
// offer never blocks, so the goroutine reading the provider's messages is
// never held up by a slow browser. The goroutine that emits is started by
// the first offer: a call without progress costs none.
type coalescer struct {
	emit     func(runtime.Progress)
	interval time.Duration
	after    func(time.Duration) <-chan time.Time // time.After, or a test's clock

	mu      sync.Mutex
	pending *runtime.Progress
	started bool
	closed  bool
	wake    chan struct{} // buffer 1: a report is pending
	done    chan struct{} // closed by close
	stopped chan struct{} // closed when the emitting goroutine returns
}

func newCoalescer(emit func(runtime.Progress), interval time.Duration, after func(time.Duration) <-chan time.Time) *coalescer {
	return &coalescer{emit: emit, interval: interval, after: after}
}

// offer records p as the latest report.
func (c *coalescer) offer(p runtime.Progress) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.pending = &p
	if !c.started {
		c.started = true
		c.wake = make(chan struct{}, 1)
		c.done = make(chan struct{})
		c.stopped = make(chan struct{})
		go c.run()
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// take returns the pending report and forgets it.
func (c *coalescer) take() *runtime.Progress {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pending
	c.pending = nil
	return p
}

func (c *coalescer) run() {
	defer close(c.stopped)
	for {
		select {
		case <-c.wake:
		case <-c.done:
			return
		}
		if p := c.take(); p != nil {
			c.emit(*p)
		}
		select {
		case <-c.after(c.interval):
		case <-c.done:
			return
		}
	}
}

// close stops the coalescer and emits the report still pending, if any,
// before it returns: the caller writes the reply after it.
func (c *coalescer) close() {
	c.mu.Lock()
	c.closed = true
	started := c.started
	c.mu.Unlock()
	if !started {
		return
	}
	close(c.done)
	<-c.stopped
	if p := c.take(); p != nil {
		c.emit(*p)
	}
}

package session

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/host/chunk"
	"github.com/gnosis/gnosis/host/framing"
)

// message is one outbound message: a reply or an event, as JSON text, and
// the id its chunk frames carry if it must be chunked.
type message struct {
	id   json.RawMessage
	body []byte
	held int64 // bytes of the in-flight budget given back once it is written or dropped
	// queued, when set, counts the request's messages waiting for the
	// writer goroutine; it is decremented once this one is written or
	// dropped.
	queued *atomic.Int32
	// event marks a runtime event (capabilities.changed, provider.state):
	// one no request asked for.
	event bool
}

// maxEarlyEvents bounds the runtime events held until the first reply.
const maxEarlyEvents = 64

// writer owns the output stream. It is the only code that writes to it.
type writer struct {
	out   io.Writer
	limit int
	buf   []byte
}

// write sends one message: as one frame if it fits, else as consecutive
// chunk frames.
func (w *writer) write(m message) error {
	if len(m.body) <= w.limit {
		return w.frame(m.body)
	}
	id := m.id
	if len(id) == 0 {
		id = nullID
	}
	return chunk.Each(id, m.body, w.limit, w.frame)
}

// frame writes length and body with a single Write call.
func (w *writer) frame(body []byte) error {
	w.buf = framing.Append(w.buf[:0], body)
	_, err := w.out.Write(w.buf)
	if cap(w.buf) > 2*w.limit+8 {
		w.buf = nil // do not pin a large buffer after an unusual frame
	}
	return err
}

// output is the output stream shared by every goroutine that writes: the
// writer goroutine (replies answered on the reader, runtime events) and the
// request goroutines, which write their own events and reply. Its mutex
// keeps each message whole, so chunk frames of one reply are consecutive and
// never interleave with another message.
type output struct {
	mu      sync.Mutex
	w       writer
	log     zerolog.Logger
	fail    context.CancelFunc // stops the session once a write failed
	err     error              // the first write error; guarded by mu
	failed  atomic.Bool
	stopped atomic.Bool // Serve has returned: messages are dropped
	// Runtime events wait until a request has been answered: a client that
	// sends one request and takes the first message back as its reply
	// (chrome.runtime.sendNativeMessage) must get the reply, not a
	// provider's state change. Guarded by mu.
	answered bool
	early    []message
}

func (o *output) start(out io.Writer, limit int, log zerolog.Logger, fail context.CancelFunc) {
	o.w = writer{out: out, limit: limit}
	o.log, o.fail = log, fail
}

// write writes m whole and reports whether it was written. A write error
// stops the session: the client can no longer hear us.
func (o *output) write(m message) bool {
	if o.stopped.Load() || o.failed.Load() {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.failed.Load() {
		return false
	}
	if m.event && !o.answered {
		if len(o.early) == maxEarlyEvents {
			o.early = o.early[1:]
		}
		o.early = append(o.early, m)
		return true
	}
	if !o.writeLocked(m) {
		return false
	}
	if !m.event && !o.answered {
		o.answered = true
		for _, e := range o.early {
			if !o.writeLocked(e) {
				return false
			}
		}
		o.early = nil
	}
	return true
}

// writeLocked writes m with mu held; a write error stops the session.
func (o *output) writeLocked(m message) bool {
	if err := o.w.write(m); err != nil {
		o.err = fmt.Errorf("writing reply: %w", err)
		o.failed.Store(true)
		o.log.Error().Err(err).Msg("writing to the browser failed; stopping")
		o.fail()
		return false
	}
	return true
}

// failure returns the write error that stopped the session, if any. It does
// not wait for a write blocked on a client that stopped reading.
func (o *output) failure() error {
	if !o.failed.Load() {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// dequeued records that m has left the writer's queue.
func (m message) dequeued() {
	if m.queued != nil {
		m.queued.Add(-1)
	}
}

package mcpprovider

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Bounds of a provider's write queue: the messages written to the server's
// stdin that it has not read yet. Past either bound a call is refused at once
// (OVERLOADED) instead of waiting behind a server that does not read. A
// message is always accepted when nothing waits, whatever its size (a
// request can be as large as the browser's largest frame, 64 MiB).
const (
	MaxQueuedMessages = 1024
	MaxQueuedBytes    = 64 << 20
)

// errBacklog is the error of a message refused because the queue is full.
var errBacklog = errors.New("the server is not reading its input")

// outbox is the transport's write queue. A message is written on the
// caller's goroutine when nothing is waiting and the pipe takes it whole
// without blocking (the usual case: no goroutine hand-off on a call's path).
// Whatever the pipe does not take at once waits here, in order, and a
// goroutine of the outbox writes it as the server reads. So no caller ever
// blocks on a server that stopped reading its stdin; the queue is bounded,
// and a message past the bound is refused with errBacklog.
type outbox struct {
	w   io.Writer
	try func(p []byte) (int, error) // non-blocking write; nil: every message goes through the queue

	mu       sync.Mutex
	current  []byte    // the rest of the message being written by the writer goroutine
	queue    []queued  // messages not written at all, oldest first
	bytes    int64     // bytes of current and queue
	busy     bool      // a write is in progress (on a caller or the writer goroutine)
	progress time.Time // when the server last took bytes while some waited
	err      error     // the write error that stopped the outbox
	closed   bool

	wake chan struct{} // buffer 1: the writer goroutine has work
	done chan struct{} // closed by close
	fail func(error)   // called once, off the caller's path, when a write fails
}

// queued is one message waiting: its pending-table key ("" for
// notifications and answers to the server) and its line.
type queued struct {
	key  string
	line []byte
}

func newOutbox(w io.Writer, fail func(error)) *outbox {
	o := &outbox{w: w, try: nonBlockingWriter(w), wake: make(chan struct{}, 1), done: make(chan struct{}), fail: fail}
	go o.run()
	return o
}

// push writes line (or queues what the pipe does not take at once). key
// names the request it carries, so withdraw can take it back while it waits.
// It never blocks on the server; it fails when the outbox is closed or its
// write failed, and with errBacklog when the queue is full.
func (o *outbox) push(key string, line []byte) error {
	o.mu.Lock()
	if err := o.stopped(); err != nil {
		o.mu.Unlock()
		return err
	}
	if !o.busy && o.try != nil {
		// Nothing waits: write on this goroutine, without blocking.
		o.busy = true
		o.mu.Unlock()
		n, err := o.try(line)
		o.mu.Lock()
		if err != nil {
			o.busy = false
			o.mu.Unlock()
			o.failed(err)
			return fmt.Errorf("writing to the server: %w", err)
		}
		if n < len(line) {
			o.current = line[n:]
			o.bytes += int64(len(o.current))
			o.progress = time.Now()
			o.signal()
		} else if len(o.queue) > 0 {
			o.signal() // queued while this one was written: the writer takes them
		} else {
			o.busy = false
		}
		o.mu.Unlock()
		return nil
	}
	if waiting := len(o.queue); o.busy && (waiting >= MaxQueuedMessages || (waiting > 0 || o.current != nil) && o.bytes+int64(len(line)) > MaxQueuedBytes) {
		err := o.backlog()
		o.mu.Unlock()
		return err
	}
	if o.bytes == 0 {
		o.progress = time.Now()
	}
	o.queue = append(o.queue, queued{key: key, line: line})
	o.bytes += int64(len(line))
	if !o.busy {
		o.busy = true
		o.signal()
	}
	o.mu.Unlock()
	return nil
}

// backlog words a refusal; o.mu must be held.
func (o *outbox) backlog() error {
	n := len(o.queue)
	if o.current != nil {
		n++
	}
	stalled := time.Since(o.progress).Round(100 * time.Millisecond)
	how := fmt.Sprintf("has read none of it for %s", stalled)
	if stalled < time.Second {
		how = "reads its input more slowly than calls arrive"
	}
	return fmt.Errorf("%w: %d messages (%d bytes) wait to be written to it (at most %d messages or %d bytes), and it %s",
		errBacklog, n, o.bytes, MaxQueuedMessages, MaxQueuedBytes, how)
}

// stopped returns why nothing more can be written; o.mu must be held.
func (o *outbox) stopped() error {
	switch {
	case o.err != nil:
		return fmt.Errorf("writing to the server: %w", o.err)
	case o.closed:
		return errOutboxClosed
	}
	return nil
}

var errOutboxClosed = errors.New("the connection to the server is closed")

// writePiece is the most the writer goroutine writes in one call.
const writePiece = 1 << 20

// signal wakes the writer goroutine; o.mu must be held.
func (o *outbox) signal() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// withdraw takes back the request with key if it is still waiting, unwritten
// (its call ended first): the server never sees it. It reports whether it
// did.
func (o *outbox) withdraw(key string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, q := range o.queue {
		if q.key == key {
			o.queue = append(o.queue[:i], o.queue[i+1:]...)
			o.bytes -= int64(len(q.line))
			return true
		}
	}
	return false
}

// run is the writer goroutine: it writes what waits, blocking as long as the
// server takes to read it, until the outbox closes.
func (o *outbox) run() {
	for {
		select {
		case <-o.wake:
		case <-o.done:
			return
		}
		for {
			o.mu.Lock()
			if o.current == nil && len(o.queue) > 0 {
				o.current = o.queue[0].line
				o.queue[0] = queued{}
				o.queue = o.queue[1:]
			}
			line := o.current
			if line == nil || o.closed || o.err != nil {
				o.busy = false
				o.queue = nil // free the backing array once drained
				o.mu.Unlock()
				break
			}
			o.mu.Unlock()
			// In pieces, so a server that reads a large request slowly is
			// seen to make progress.
			n, err := o.w.Write(line[:min(len(line), writePiece)])
			o.mu.Lock()
			o.bytes -= int64(n)
			o.progress = time.Now()
			if o.current = line[n:]; len(o.current) == 0 || o.closed {
				o.current = nil
			}
			if err != nil {
				o.busy = false
				o.mu.Unlock()
				o.failed(err)
				return
			}
			o.mu.Unlock()
		}
	}
}

// failed stops the outbox after a write error and reports it, once.
func (o *outbox) failed(err error) {
	o.mu.Lock()
	first := o.err == nil && !o.closed
	if first {
		o.err = err
		o.queue, o.current = nil, nil
	}
	o.mu.Unlock()
	if first && o.fail != nil {
		go o.fail(err)
	}
}

// close drops what waits and stops the writer goroutine (a write in
// progress fails when the pipe under it closes).
func (o *outbox) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.closed = true
	o.queue, o.current = nil, nil
	close(o.done)
}

package mcpprovider

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// The server's stdout has one reader at a time: whoever holds the token
// (pipeTransport.tok) reads lines and routes them (replies to their waiting
// callers, notifications to the handler, requests to a goroutine of their
// own). A call waiting for its reply takes the token when it is free and
// reads for itself until its reply arrives, so the reply reaches its caller
// without passing through another goroutine (on a busy two-CPU machine each
// such hand-off wakes a thread). When no call has been made for a while,
// the background goroutine takes the token and reads, so notifications,
// pings and the end of the stream are still seen between calls.

// idleTick is how often the background goroutine checks whether calls
// stopped; a message from the server that arrives between calls waits at
// most about two ticks to be read.
const idleTick = 10 * time.Millisecond

// maxLine bounds one incoming message: beyond it the server is broken or
// hostile, and the connection is dropped rather than memory exhausted.
const maxLine = 512 << 20

// deadliner is the part of *os.File that lets a blocked read be
// interrupted and tells what waits unread.
type deadliner interface {
	SetReadDeadline(time.Time) error
	SyscallConn() (syscall.RawConn, error)
}

// lineReader reads newline-delimited messages. A read cut short by a
// deadline keeps what it read of the line for the next call.
type lineReader struct {
	br      *bufio.Reader
	partial []byte
}

// next returns the next line without its newline, in a buffer of its own
// (results alias it). At the end of the stream it returns the unterminated
// rest, if any, with the error. After os.ErrDeadlineExceeded it returns no
// line and may be called again.
func (lr *lineReader) next() ([]byte, error) {
	for {
		frag, err := lr.br.ReadSlice('\n')
		if err == nil && lr.partial == nil {
			return trimEOL(append([]byte(nil), frag...)), nil
		}
		lr.partial = append(lr.partial, frag...)
		if len(lr.partial) > maxLine {
			lr.partial = nil
			return nil, fmt.Errorf("a message from the server exceeds %d bytes", maxLine)
		}
		switch {
		case err == nil:
			line := lr.partial
			lr.partial = nil
			return trimEOL(line), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, err
		}
		line := lr.partial
		lr.partial = nil
		return trimEOL(line), err
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// interrupt makes the current read (or the next one) return
// os.ErrDeadlineExceeded, so its reader can look at why it should stop.
func (t *pipeTransport) interrupt() {
	if t.deadline != nil {
		_ = t.deadline.SetReadDeadline(time.Unix(1, 0))
	}
}

// readOne reads and routes one line; the caller holds the token. It reports
// whether the line was a response, and whether the stream has ended (then
// every waiting request fails).
func (t *pipeTransport) readOne() (response, ended bool) {
	line, err := t.lr.next()
	if len(line) > 0 {
		response = t.route(line)
	}
	if response && err == nil {
		t.routeReady()
	}
	for i, r := range t.replies {
		r.ch <- r.resp // buffered: never blocks
		t.replies[i] = reply{}
	}
	t.replies = t.replies[:0]
	switch {
	case err == nil:
		return response, false
	case errors.Is(err, os.ErrDeadlineExceeded):
		// Interrupted: clear the deadline before the caller looks at its
		// reasons to stop, so an interrupt that comes later is not lost.
		_ = t.deadline.SetReadDeadline(time.Time{})
		return response, false
	case !errors.Is(err, io.EOF):
		t.log.Debug().Err(err).Msg("reading from the server")
	}
	t.finish()
	return response, true
}

// finish marks the stream ended: waiting requests fail and readDone closes.
func (t *pipeTransport) finish() {
	t.finishOnce.Do(func() {
		t.shut()
		close(t.readDone)
	})
}

// lead reads for a caller waiting for its reply on ch, which holds the
// token, until the reply arrives, ctx ends, the transport closes or the
// stream ends; then it gives the token back.
func (t *pipeTransport) lead(ctx context.Context, ch chan *transport.JSONRPCResponse) (*transport.JSONRPCResponse, error) {
	defer func() { t.tok <- struct{}{} }()
	for {
		select {
		case resp := <-ch:
			return resp, nil
		default:
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		select {
		case <-t.done:
			return nil, transport.ErrTransportClosed
		default:
		}
		if _, ended := t.readOne(); ended {
			select {
			case resp := <-ch: // answered just before the end
				return resp, nil
			default:
			}
			return nil, transport.ErrTransportClosed
		}
	}
}

// routeReady routes the complete lines the server has already written,
// before a reply read just now is delivered: what the server sent with it
// (such as the call's last progress report, which some servers write after
// the reply) is handled before the caller resumes, as if a reader had gone
// on reading. It never waits for more.
func (t *pipeTransport) routeReady() {
	for {
		if !t.lineBuffered() {
			if t.raw == nil || available(t.raw) <= 0 {
				return
			}
			if _, err := t.lr.br.Peek(t.lr.br.Buffered() + 1); err != nil || !t.lineBuffered() {
				return
			}
		}
		line, err := t.lr.next()
		if err != nil {
			return
		}
		t.route(line)
	}
}

// reply is a response routed to the channel its caller waits on.
type reply struct {
	ch   chan *transport.JSONRPCResponse
	resp *transport.JSONRPCResponse
}

// lineBuffered reports whether a whole line waits in the read buffer.
func (t *pipeTransport) lineBuffered() bool {
	b, _ := t.lr.br.Peek(t.lr.br.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// background reads whenever no call does: from the start until calls
// begin, and again once they have stopped for an idleTick. It returns when
// the stream has ended.
func (t *pipeTransport) background() {
	for {
		select {
		case <-t.tok:
		case <-t.readDone:
			return
		}
		for {
			select {
			case <-t.readDone:
				t.tok <- struct{}{}
				return
			default:
			}
			response, ended := t.readOne()
			if ended {
				t.tok <- struct{}{}
				return
			}
			if response && t.deadline != nil {
				// Calls are being made: they read for themselves.
				t.tok <- struct{}{}
				break
			}
		}
		t.waitIdle()
	}
}

// waitIdle returns once a whole idleTick passed without a call starting, or
// the transport closed (the rest of the stream is still read, so readDone
// tells when it ends).
func (t *pipeTransport) waitIdle() {
	tick := time.NewTicker(idleTick)
	defer tick.Stop()
	seen := t.calls.Load()
	for {
		select {
		case <-tick.C:
		case <-t.done:
			return
		}
		n := t.calls.Load()
		if n == seen {
			return
		}
		seen = n
	}
}

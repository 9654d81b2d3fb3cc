package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gnosis/gnosis/internal/budget"
	"github.com/gnosis/gnosis/runtime/wire"
)

// handler is how the session runs one method: run answers it (on the reader
// when quick, else on a pooled goroutine), or start begins it and it replies
// when it ends.
type handler struct {
	run   Method
	start AsyncMethod
	quick bool // run never blocks: the reader answers it itself
}

// maxInlineStart is the largest request the reader starts itself. A larger
// one starts on a pooled goroutine: reading its params takes long enough
// to hold up the requests behind it (a cancel among them). Whatever the
// size, the reader never validates: the runtime decodes and checks an
// execute's arguments on a goroutine of its own, so a starting execute
// costs the reader its admission checks alone.
const maxInlineStart = 16 << 10

// dispatch decodes one request and answers it, at once or when its method
// ends. The size bytes it holds in the in-flight budget are given back once
// it is answered.
func (s *Session) dispatch(ctx context.Context, body []byte, size int64, methods map[string]handler, handlers *sync.WaitGroup) {
	req, err := DecodeRequest(body)
	h, known := methods[req.Method]
	// A large request that begins on a pooled goroutine has its secret
	// values learned there, before it begins: the reader never scans its
	// params. Every other request has them learned here.
	learnLater := err == nil && known && s.forbidden == "" && !h.quick && size > maxInlineStart
	if err == nil && s.secrets != nil && !learnLater {
		s.secrets.AddJSON(req.Params)
	}
	switch {
	case s.forbidden != "":
		err = &wire.Error{Code: wire.CodeForbidden, Message: s.forbidden}
	case err != nil:
	case !known:
		err = wire.Errorf(wire.CodeUnknownMethod, "unknown method %q", req.Method)
	}
	if err != nil {
		s.bytes.Release(size)
		s.reply(req.ID, nil, err)
		return
	}
	key := idKey(req.ID)
	reqCtx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	closing := s.closing
	_, busy := s.inflight[key]
	if !busy && !closing && !h.quick {
		s.inflight[key] = cancel
		handlers.Add(1)
	}
	s.mu.Unlock()
	if closing || busy {
		if learnLater && s.secrets != nil {
			s.secrets.AddJSON(req.Params)
		}
		cancel()
		s.bytes.Release(size)
		if busy {
			s.reply(req.ID, nil, wire.Errorf(wire.CodeInvalidRequest, "a request with id %s is already in flight", req.ID))
		}
		return
	}
	if h.quick {
		// Answered on the reader: it never blocks, and skipping two
		// goroutine hand-offs is most of the host's per-call latency.
		result, err := run(reqCtx, h.run, &Call{ID: req.ID, Params: req.Params, Emit: s.emitVia(req.ID, s.send)})
		cancel()
		s.bytes.Release(size)
		s.reply(req.ID, result, err)
		return
	}
	p := &pending{s: s, id: req.ID, params: req.Params, key: key, cancel: cancel, held: size, handlers: handlers}
	if h.start == nil {
		// Methods other parts of the host add may build large replies:
		// they reserve their bytes first (reserve.go).
		reqCtx = budget.WithReserver(reqCtx, p.reserve)
	}
	c := &Call{ID: req.ID, Params: req.Params, Emit: s.emitVia(req.ID, p.deliver)}
	if h.start == nil || size > maxInlineStart {
		s.workers.run(func() {
			if learnLater && s.secrets != nil {
				s.secrets.AddJSON(req.Params)
			}
			p.begin(reqCtx, h, c)
		})
		return
	}
	p.inline.Store(true)
	p.begin(reqCtx, h, c)
	p.inline.Store(false)
}

// run calls m, turning a panic into an error: one bad handler must not take
// the host (and every other request) down.
func run(ctx context.Context, m Method, c *Call) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	return m(ctx, c)
}

// pending is a request that has begun and not yet been answered.
type pending struct {
	s        *Session
	id       json.RawMessage
	params   json.RawMessage
	key      string
	cancel   context.CancelFunc
	held     int64        // the request's bytes in the in-flight budget
	reserved atomic.Int64 // bytes its method reserved for its reply
	handlers *sync.WaitGroup

	// inline is set while the reader runs the request's start: what it
	// writes then goes through the writer goroutine, so the reader never
	// blocks on the output.
	inline atomic.Bool
	// queued counts its messages waiting for the writer goroutine: while
	// any wait, the next ones queue behind them, so an event sent while
	// inline is never overtaken by a later event or the reply.
	queued  atomic.Int32
	replied atomic.Bool
}

// begin runs h's start, or its run and then the reply, turning a panic into
// the reply's error.
func (p *pending) begin(ctx context.Context, h handler, c *Call) {
	defer func() {
		if v := recover(); v != nil {
			p.reply(nil, fmt.Errorf("internal error: %v", v))
		}
	}()
	if h.start != nil {
		h.start(ctx, c, p.reply)
		return
	}
	p.reply(run(ctx, h.run, c))
}

// reply writes the request's reply and ends it; later calls are ignored.
func (p *pending) reply(result any, err error) {
	s := p.s
	if !p.replied.CompareAndSwap(false, true) {
		s.log.Error().RawJSON("id", p.id).Msg("a method replied twice; the second reply is dropped")
		return
	}
	s.mu.Lock()
	delete(s.inflight, p.key)
	s.mu.Unlock()
	p.cancel()
	m := s.replyMessage(p.id, p.params, result, err)
	p.deliver(m)
	s.bytes.Release(p.held)
	s.replies.Return(p.reserved.Load())
	p.handlers.Done()
}

// deliver writes one of the request's messages (an event or the reply): at
// once, or through the writer goroutine while the reader holds the request
// or earlier messages of the request still wait there. Its bytes count in
// the in-flight budget until written.
func (p *pending) deliver(m message) bool {
	s := p.s
	m.held = int64(len(m.body))
	s.bytes.Hold(m.held)
	if p.inline.Load() || p.queued.Load() > 0 {
		p.queued.Add(1)
		m.queued = &p.queued
		return s.send(m) // the writer gives the bytes back
	}
	defer s.bytes.Release(m.held)
	return s.out.write(m)
}

// emitVia returns Call.Emit for the request id: events are sent with send,
// as its reply is, so they precede it.
func (s *Session) emitVia(id json.RawMessage, send func(message) bool) func(any) error {
	return func(event any) error {
		body, err := withID(id, "", event)
		if err != nil {
			return fmt.Errorf("event: %w", err)
		}
		var probe struct {
			Event string `json:"event"`
		}
		if json.Unmarshal(body, &probe) != nil || probe.Event == "" {
			return errors.New(`event: must have a non-empty "event" field`)
		}
		if len(body) > s.maxFrame {
			// Clients reassemble chunks as replies: events are never chunked.
			return fmt.Errorf("%w: event of %d bytes, limit %d", ErrEventTooLarge, len(body), s.maxFrame)
		}
		if !send(message{id: id, body: body}) {
			return ErrSessionClosed
		}
		return nil
	}
}

package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/host/chunk"
	"github.com/gnosis/gnosis/host/framing"
	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
)

// Runtime is what the session needs of the capability runtime
// (*runtime.Runtime implements it).
type Runtime interface {
	List() []runtime.Summary
	Describe(name string) (runtime.Capability, error)
	Execute(ctx context.Context, c runtime.Call) (json.RawMessage, error)
	Health() runtime.Health
	// Close stops the providers and their process trees.
	Close() error
}

// Call is one request as a Method sees it.
type Call struct {
	// ID is the request id's JSON text.
	ID json.RawMessage
	// Params is the params object's JSON text ("{}" when absent).
	Params json.RawMessage
	// Emit sends an event frame while the request runs (progress, partial
	// output). event must encode to a JSON object with an "event" field; the
	// session puts "id" (this request's id) first so the client can route it.
	// Events emitted before the method returns are written before its reply.
	// An event must fit in one frame (ErrEventTooLarge otherwise): events are
	// never chunked.
	Emit func(event any) error
}

// Method handles one request method. Its result must encode to a JSON object
// (or be nil); its fields follow "id" and "ok": true in the reply and must not
// be named "id" or "ok". An error becomes the failure reply: return a
// *wire.Error to choose the code.
type Method func(ctx context.Context, c *Call) (any, error)

// ShutdownGrace bounds how long Serve waits, after its input ends, for
// cancelled requests to finish, queued frames to be written and the runtime
// to close. Chrome kills a host 2 s after closing its pipes.
const ShutdownGrace = 900 * time.Millisecond

// Session serves one stream pair. Create it with New, give Event to the
// runtime (runtime.WithEvents), then call Serve once.
type Session struct {
	version   string
	maxFrame  int
	maxIn     int
	log       zerolog.Logger
	forbidden string
	approver  Approver // asks the user about calls the policy marks "ask"
	extra     map[string]Method
	quick     map[string]bool // built-in methods that never block: run on the reader
	budget    budget          // bytes held for requests in flight

	queue      chan message
	writerDone chan struct{} // closed when the writer goroutine stops
	out        output        // the output stream, shared by the writer goroutine and request goroutines
	workers    *pool         // long-lived goroutines that run requests

	mu       sync.Mutex
	inflight map[string]context.CancelFunc
	closing  bool
}

// Option configures a Session.
type Option func(*Session)

// WithVersion sets the version health reports.
func WithVersion(v string) Option { return func(s *Session) { s.version = v } }

// WithMaxFrame lowers the outbound frame limit (default and maximum 1 MiB;
// values below MinFrame are raised to it). Tests use it to exercise chunking.
func WithMaxFrame(n int) Option {
	return func(s *Session) {
		if n > 0 && n < chunk.DefaultLimit {
			s.maxFrame = max(n, MinFrame)
		}
	}
}

// MinFrame is the smallest outbound frame limit: enough for any chunk header
// with an id of MaxIDLength bytes.
const MinFrame = 1024

// WithMaxInbound sets the inbound frame limit (default 64 MiB).
func WithMaxInbound(n int) Option { return func(s *Session) { s.maxIn = n } }

// WithLogger sets the logger (default: disabled).
func WithLogger(l zerolog.Logger) Option { return func(s *Session) { s.log = l } }

// WithForbidden makes the session answer every request with FORBIDDEN and
// reason as message: the caller is not a trusted extension. The host keeps
// serving so the user sees why nothing works.
func WithForbidden(reason string) Option { return func(s *Session) { s.forbidden = reason } }

// WithMethod adds a method (or replaces a built-in one of the same name).
func WithMethod(name string, m Method) Option {
	return func(s *Session) { s.extra[name] = m }
}

// New returns a Session.
func New(opts ...Option) *Session {
	s := &Session{
		version:    "dev",
		maxFrame:   chunk.DefaultLimit,
		maxIn:      framing.MaxInbound,
		log:        zerolog.Nop(),
		extra:      map[string]Method{},
		queue:      make(chan message, 256),
		writerDone: make(chan struct{}),
		inflight:   map[string]context.CancelFunc{},
	}
	s.budget.limit = DefaultMaxInflightBytes
	for _, o := range opts {
		o(s)
	}
	return s
}

// Event forwards a runtime event to the client. Pass it to runtime.WithEvents.
// It may be called before Serve (events are queued) and after (dropped).
func (s *Session) Event(e runtime.Event) {
	var v any
	switch e.Kind {
	case runtime.EventCapabilitiesChanged:
		v = capabilitiesChanged{Event: e.Kind, Capabilities: e.Capabilities}
	case runtime.EventProviderState:
		v = providerState{Event: e.Kind, providerJSON: toProviderJSON(e.Provider)}
	default:
		return
	}
	b, err := marshal(v)
	if err != nil {
		s.log.Error().Err(err).Msg("encoding event")
		return
	}
	s.send(message{body: b})
}

// send queues a message for the writer goroutine; it is dropped once the
// writer stopped. The reader uses it (it must never block on the output, or
// it could not see the input end), and so do runtime events.
func (s *Session) send(m message) bool {
	select {
	case s.queue <- m:
		return true
	case <-s.writerDone:
		s.budget.release(m.held)
		return false
	}
}

// Serve reads requests from in and writes replies and events to out until in
// ends, then cancels every request in flight, closes rt and returns within
// ShutdownGrace. End of input, a truncated last frame and an oversized frame
// (answered with MESSAGE_TOO_LARGE first) all end the session normally and
// return nil; an error writing to out is returned.
func (s *Session) Serve(ctx context.Context, rt Runtime, in io.Reader, out io.Writer) error {
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	methods := builtins(rt, s)
	s.quick = map[string]bool{"health": true, "capabilities.list": true, "capabilities.describe": true, "cancel": true}
	for name, m := range s.extra {
		methods[name] = m
		delete(s.quick, name)
	}

	s.out.start(out, s.maxFrame, s.log, cancelAll)
	s.workers = newPool()
	defer s.workers.stop()
	stopWriter := make(chan struct{})
	go func() {
		defer close(s.writerDone)
		s.runWriter(stopWriter)
	}()

	var handlers sync.WaitGroup
	readDone := make(chan error, 1)
	// Buffered: a request's length and body usually arrive together, and
	// one read instead of two is measurable per call.
	br := bufio.NewReaderSize(in, 64<<10)
	r := framing.NewReader(br, s.maxIn)
	go s.serveInput(&input{ctx: ctx, br: br, r: r, methods: methods, handlers: &handlers, done: readDone})
	var readErr error
	select {
	case readErr = <-readDone:
	case <-ctx.Done():
		// The writer failed or the caller cancelled: stop without waiting
		// for the reader, which may be blocked on input that never comes.
	}

	// Shutdown: cancel, close the runtime, let replies drain, all bounded
	// by one deadline (a context, whose Done stays closed once it passes).
	grace, stopGrace := context.WithTimeout(context.Background(), ShutdownGrace)
	defer stopGrace()
	s.mu.Lock()
	s.closing = true // no handler starts after this
	s.mu.Unlock()
	cancelAll()
	closed := make(chan error, 1)
	go func() { closed <- rt.Close() }()
	waitOr(grace.Done(), func() { handlers.Wait() })
	close(stopWriter)
	waitOr(grace.Done(), func() { <-s.writerDone })
	s.out.stopped.Store(true) // a request still running past the grace is not heard
	select {
	case err := <-closed:
		if err != nil {
			s.log.Warn().Err(err).Msg("closing runtime")
		}
	case <-grace.Done():
		s.log.Warn().Msg("runtime did not close in time")
	}
	if readErr != nil {
		return readErr
	}
	return s.out.failure()
}

// waitOr runs wait in a goroutine and returns when it is done or at deadline.
func waitOr(deadline <-chan struct{}, wait func()) {
	done := make(chan struct{})
	go func() { wait(); close(done) }()
	select {
	case <-done:
	case <-deadline:
	}
}

// runWriter writes queued messages until stop, then writes what is already
// queued and returns. It returns early once the output failed.
func (s *Session) runWriter(stop <-chan struct{}) {
	for {
		select {
		case m := <-s.queue:
			if !s.writeQueued(m) {
				return
			}
		case <-stop:
			for {
				select {
				case m := <-s.queue:
					if !s.writeQueued(m) {
						return
					}
				default:
					return
				}
			}
		}
	}
}

// writeQueued writes a message taken from the queue and gives back the
// bytes it held.
func (s *Session) writeQueued(m message) bool {
	ok := s.out.write(m)
	s.budget.release(m.held)
	return ok
}

// input is the reading side of a session. One goroutine at a time reads it:
// the role passes from goroutine to goroutine (serveInput).
type input struct {
	ctx      context.Context
	br       *bufio.Reader // what r reads from, for admit and refuse
	r        *framing.Reader
	methods  map[string]Method
	handlers *sync.WaitGroup
	done     chan<- error // receives readLoop's result when the input ends
}

// serveInput reads requests until one must run on a goroutine of its own;
// then it runs that request right here, on the goroutine (and thread) that
// is already awake, and passes the reading on to a pooled goroutine. Handing
// the request over instead would wake another thread on the critical path.
func (s *Session) serveInput(in *input) {
	run, err := s.readLoop(in)
	if run == nil {
		in.done <- err
		return
	}
	s.workers.run(func() { s.serveInput(in) })
	run()
}

// readLoop reads and dispatches requests until the input ends or a request
// must run on its own goroutine (returned as run). At the end it returns nil
// when the input ended (cleanly or not) and an error for other read failures.
func (s *Session) readLoop(in *input) (run func(), err error) {
	ctx, r := in.ctx, in.r
	for {
		// The frame's length is checked against the in-flight budget
		// before its body is allocated.
		size, fits := s.admit(in.br)
		var body []byte
		var err error
		if fits {
			body, err = r.Read()
			if err != nil {
				s.budget.release(size)
			}
		} else {
			err = s.refuse(in.br, size)
		}
		var tooLarge *framing.TooLargeError
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			s.log.Debug().Msg("input closed")
			return nil, nil
		case errors.As(err, &tooLarge):
			s.log.Warn().Uint32("length", tooLarge.Length).Msg("inbound frame too large; closing")
			s.send(message{body: errorReply(nil, &wire.Error{
				Code:    wire.CodeMessageTooLarge,
				Message: fmt.Sprintf("message of %d bytes exceeds the %d-byte limit; the host closes the connection", tooLarge.Length, s.maxIn),
			})})
			return nil, nil
		case errors.Is(err, framing.ErrTruncated):
			s.log.Warn().Err(err).Msg("input ended inside a frame")
			return nil, nil
		default:
			if ctx.Err() != nil {
				return nil, nil
			}
			return nil, fmt.Errorf("reading request: %w", err)
		}
		if !fits {
			continue // refused and answered
		}
		if ctx.Err() != nil { // the writer failed: nobody hears replies
			s.budget.release(size)
			return nil, nil
		}
		run := s.dispatch(ctx, body, size, in.methods, in.handlers)
		if run != nil {
			return run, nil
		}
		s.budget.release(size) // answered here: the request's bytes are dropped
	}
}

// dispatch decodes one request and answers it at once, or returns the
// function that runs it (on a goroutine other than the reader's). That
// function gives back the size bytes of the budget the request took when
// it ends, however it ends; if dispatch answers at once the caller does.
func (s *Session) dispatch(ctx context.Context, body []byte, size int64, methods map[string]Method, handlers *sync.WaitGroup) func() {
	req, err := DecodeRequest(body)
	if s.forbidden != "" {
		s.reply(req.ID, nil, &wire.Error{Code: wire.CodeForbidden, Message: s.forbidden})
		return nil
	}
	if err != nil {
		s.reply(req.ID, nil, err)
		return nil
	}
	m := methods[req.Method]
	if m == nil {
		s.reply(req.ID, nil, wire.Errorf(wire.CodeUnknownMethod, "unknown method %q", req.Method))
		return nil
	}
	key := idKey(req.ID)
	quick := s.quick[req.Method]
	reqCtx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	closing := s.closing
	_, busy := s.inflight[key]
	if !busy && !closing && !quick {
		s.inflight[key] = cancel
		handlers.Add(1)
	}
	s.mu.Unlock()
	if closing {
		cancel()
		return nil
	}
	if busy {
		cancel()
		s.reply(req.ID, nil, wire.Errorf(wire.CodeInvalidRequest, "a request with id %s is already in flight", req.ID))
		return nil
	}
	if quick {
		// Answered on the reader: it never blocks, and skipping two
		// goroutine hand-offs is most of the host's per-call latency.
		result, err := run(reqCtx, m, &Call{ID: req.ID, Params: req.Params, Emit: s.emitter(req.ID)})
		cancel()
		s.reply(req.ID, result, err)
		return nil
	}
	// The goroutine that runs it writes its own reply: no hand-off to the
	// writer goroutine. It is pooled, so its stack has already grown to what
	// a request needs.
	return func() {
		held := size
		defer func() { s.budget.release(held) }()
		defer handlers.Done()
		c := &Call{ID: req.ID, Params: req.Params, Emit: s.direct(req.ID)}
		result, err := run(reqCtx, m, c)
		s.mu.Lock()
		delete(s.inflight, key)
		s.mu.Unlock()
		cancel()
		reply := s.replyMessage(req.ID, req.Params, result, err)
		s.budget.hold(int64(len(reply.body)))
		held += int64(len(reply.body))
		s.out.write(reply)
	}
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

// reply queues the reply to a request: success with result, or failure.
// Its bytes count in the in-flight budget until it is written.
func (s *Session) reply(id json.RawMessage, result any, err error) {
	m := s.replyMessage(id, nil, result, err)
	m.held = int64(len(m.body))
	s.budget.hold(m.held)
	s.send(m)
}

// replyMessage encodes the reply to a request: success with result, or
// failure. A failure is logged at debug level, its text redacted: it may
// quote the request's params (given when known), which may hold secrets.
func (s *Session) replyMessage(id, params json.RawMessage, result any, err error) message {
	var body []byte
	if err == nil {
		body, err = successReply(id, result)
	}
	if err != nil {
		if len(id) == 0 {
			id = nullID
		}
		body = errorReply(id, err)
		if ev := s.log.Debug(); ev.Enabled() {
			ev.RawJSON("id", id).Str("code", string(wire.CodeOf(err))).Str("error", runtime.RedactMessage(err.Error(), params)).Msg("request failed")
		}
	}
	return message{id: id, body: body}
}

// cancel cancels the request in flight with the given id key.
func (s *Session) cancel(key string) bool {
	s.mu.Lock()
	cancel, ok := s.inflight[key]
	s.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// ErrEventTooLarge is returned by Emit for an event that does not fit in one
// frame: events are never chunked, so a method must split its output itself.
var ErrEventTooLarge = errors.New("event too large for one frame")

// ErrSessionClosed is returned by Emit once the session has stopped writing.
var ErrSessionClosed = errors.New("session closed")

// emitter returns Call.Emit for a request answered on the reader: events
// go through the writer goroutine's queue, as its reply does.
func (s *Session) emitter(id json.RawMessage) func(any) error {
	return s.emitVia(id, s.send)
}

// direct returns Call.Emit for a request on its own goroutine: events are
// written at once, as its reply is, so they precede it.
func (s *Session) direct(id json.RawMessage) func(any) error {
	return s.emitVia(id, s.out.write)
}

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

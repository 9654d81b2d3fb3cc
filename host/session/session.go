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
	"github.com/gnosis/gnosis/host/method"
	"github.com/gnosis/gnosis/host/redact"
	"github.com/gnosis/gnosis/internal/budget"
	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
)

// Runtime is what the session needs of the capability runtime
// (*runtime.Runtime implements it).
type Runtime interface {
	List() []runtime.Summary
	Describe(name string) (runtime.Capability, error)
	// ExecuteAsync starts an execute and returns; done receives its result
	// once, from any goroutine (see runtime.Runtime.ExecuteAsync).
	ExecuteAsync(ctx context.Context, c runtime.Call, done func(json.RawMessage, error))
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

// AsyncMethod starts one request and returns without waiting for it to end;
// reply receives its result or error (as a Method returns them) exactly once,
// from any goroutine. It may be called on the goroutine that reads requests,
// so it must neither block nor emit before it returns; whatever waits (a
// tool, the user) must end in a call to reply, not in a goroutine parked on
// it. execute is one: no goroutine is held while a tool runs, and none has
// to be woken to write its reply.
type AsyncMethod func(ctx context.Context, c *Call, reply func(result any, err error))

// ShutdownGrace bounds how long Serve waits, after its input ends, for
// cancelled requests to finish, queued frames to be written and the runtime
// to close. Chrome kills a host 2 s after closing its pipes.
const ShutdownGrace = 900 * time.Millisecond

// Session serves one stream pair. Create it with New, give Event to the
// runtime (runtime.WithEvents), then call Serve once.
type Session struct {
	version     string
	callTimeout func() time.Duration
	after       func(time.Duration) <-chan time.Time // the shutdown grace's timer: time.After, or a test's clock
	secrets     *redact.Set
	maxFrame    int
	maxIn       int
	log         zerolog.Logger
	forbidden   string
	approver    Approver // asks the user about calls the policy marks "ask"
	extra       map[string]Method
	maxInflight int64
	bytes       *budget.Budget // bytes held for requests in flight and replies waiting to be written
	replies     *budget.Budget // bytes methods reserved for the replies they build (reserve.go)

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

// WithCallTimeout sets how health reports the host's per-call time limit
// (callTimeoutMs): the longest a provider's call may take before the host
// answers TIMEOUT, so that a client waits that long and a little more
// instead of guessing.
func WithCallTimeout(f func() time.Duration) Option { return func(s *Session) { s.callTimeout = f } }

// WithSecrets makes the session record, from every request's params, the
// values of secret-named fields (a password argument, an Authorization
// header, a server's API_KEY) into secrets, which masks them wherever they
// recur (the log, the report), and mask secrets in the providers' errors
// and stderr it reports (health, provider.state).
func WithSecrets(secrets *redact.Set) Option { return func(s *Session) { s.secrets = secrets } }

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

// WithMethods adds the methods of a part of the host (grants, providers,
// workspace, relay), each given the request's id, params and Emit.
func WithMethods(t method.Table) Option {
	return func(s *Session) {
		for name, f := range t {
			s.extra[name] = func(ctx context.Context, c *Call) (any, error) { return f(ctx, c.ID, c.Params, c.Emit) }
		}
	}
}

// New returns a Session.
func New(opts ...Option) *Session {
	s := &Session{
		version:    "dev",
		after:      time.After,
		maxFrame:   chunk.DefaultLimit,
		maxIn:      framing.MaxInbound,
		log:        zerolog.Nop(),
		extra:      map[string]Method{},
		queue:      make(chan message, 256),
		writerDone: make(chan struct{}),
		inflight:   map[string]context.CancelFunc{},
	}
	s.maxInflight = DefaultMaxInflightBytes
	for _, o := range opts {
		o(s)
	}
	s.bytes = budget.New(s.maxInflight)
	s.replies = budget.New(min(s.maxInflight, MaxReplyBytes))
	return s
}

// Event forwards a runtime event to the client. Pass it to runtime.WithEvents.
// It may be called before Serve (events are queued) and after (dropped).
// Events reach the client only once one of its requests has been answered
// (the first reply goes first), so a one-shot client gets its reply.
func (s *Session) Event(e runtime.Event) {
	var v any
	switch e.Kind {
	case runtime.EventCapabilitiesChanged:
		v = capabilitiesChanged{Event: e.Kind, Capabilities: e.Capabilities}
	case runtime.EventProviderState:
		v = providerState{Event: e.Kind, providerJSON: toProviderJSON(e.Provider, s.secrets)}
	default:
		return
	}
	b, err := marshal(v)
	if err != nil {
		s.log.Error().Err(err).Msg("encoding event")
		return
	}
	s.send(message{body: b, event: true})
}

// send queues a message for the writer goroutine; it is dropped once the
// writer stopped. The reader uses it (it must never block on the output, or
// it could not see the input end), and so do runtime events.
func (s *Session) send(m message) bool {
	select {
	case s.queue <- m:
		return true
	case <-s.writerDone:
		s.bytes.Release(m.held)
		m.dequeued()
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
	for name, m := range s.extra {
		methods[name] = handler{run: m}
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
	go func() { readDone <- s.readLoop(&input{ctx: ctx, br: br, r: r, methods: methods, handlers: &handlers}) }()
	var readErr error
	select {
	case readErr = <-readDone:
	case <-ctx.Done():
		// The writer failed or the caller cancelled: stop without waiting
		// for the reader, which may be blocked on input that never comes.
	}

	// Shutdown: cancel, close the runtime, let replies drain, all bounded
	// by one deadline (a context, whose Done stays closed once it passes).
	grace, stopGrace := context.WithCancel(context.Background())
	defer stopGrace()
	go func() {
		select {
		case <-s.after(ShutdownGrace):
			stopGrace()
		case <-grace.Done():
		}
	}()
	s.mu.Lock()
	s.closing = true // no handler starts after this
	s.mu.Unlock()
	cancelAll()
	closed := make(chan error, 1)
	go func() { closed <- rt.Close() }()
	if !waitOr(grace.Done(), func() { handlers.Wait() }) {
		s.log.Warn().Msg("requests still running at the end of the shutdown grace")
	}
	close(stopWriter)
	if !waitOr(grace.Done(), func() { <-s.writerDone }) {
		s.log.Warn().Msg("replies not written by the end of the shutdown grace")
	}
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

// waitOr runs wait in a goroutine and returns when it is done (true) or at
// deadline (false).
func waitOr(deadline <-chan struct{}, wait func()) bool {
	done := make(chan struct{})
	go func() { wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-deadline:
		return false
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
	s.bytes.Release(m.held)
	m.dequeued()
	return ok
}

// input is the reading side of a session, read by one goroutine.
type input struct {
	ctx      context.Context
	br       *bufio.Reader // what r reads from, for admit and refuse
	r        *framing.Reader
	methods  map[string]handler
	handlers *sync.WaitGroup
}

// readLoop reads and dispatches requests until the input ends. It returns
// nil when the input ended (cleanly or not) and an error for other read
// failures.
func (s *Session) readLoop(in *input) error {
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
				s.bytes.Release(size)
			}
		} else {
			err = s.refuse(in.br, size)
		}
		var tooLarge *framing.TooLargeError
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			s.log.Debug().Msg("input closed")
			return nil
		case errors.As(err, &tooLarge):
			s.log.Warn().Uint32("length", tooLarge.Length).Msg("inbound frame too large; closing")
			s.send(message{body: errorReply(nil, &wire.Error{
				Code:    wire.CodeMessageTooLarge,
				Message: fmt.Sprintf("message of %d bytes exceeds the %d-byte limit; the host closes the connection", tooLarge.Length, s.maxIn),
			})})
			return nil
		case errors.Is(err, framing.ErrTruncated):
			s.log.Warn().Err(err).Msg("input ended inside a frame")
			return nil
		default:
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("reading request: %w", err)
		}
		if !fits {
			continue // refused and answered
		}
		if ctx.Err() != nil { // the writer failed: nobody hears replies
			s.bytes.Release(size)
			return nil
		}
		s.dispatch(ctx, body, size, in.methods, in.handlers)
	}
}

// reply queues the reply to a request: success with result, or failure.
// Its bytes count in the in-flight budget until it is written.
func (s *Session) reply(id json.RawMessage, result any, err error) {
	m := s.replyMessage(id, nil, result, err)
	m.held = int64(len(m.body))
	s.bytes.Hold(m.held)
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

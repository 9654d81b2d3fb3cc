package mcpprovider

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
	"github.com/rs/zerolog"
)

// Config describes one MCP stdio server.
type Config struct {
	// Name identifies the provider in health and logs.
	Name string
	// Command and Args start the server.
	Command string
	Args    []string
	// Env is added to the host's environment (os.Environ()) for the child.
	Env map[string]string
	// Prefix names its capabilities "<prefix>.<tool>".
	Prefix string
	// Timeout bounds each tool call (default runtime.DefaultCallTimeout).
	Timeout time.Duration
	// StartTimeout bounds start-up: spawn, initialize and the first
	// tools/list (default DefaultStartTimeout).
	StartTimeout time.Duration
}

// DefaultStartTimeout bounds start-up when Config.StartTimeout does not set it.
const DefaultStartTimeout = 30 * time.Second

// Option configures a Provider.
type Option func(*Provider)

// WithLogger sets the logger for supervision events and the child's stderr.
func WithLogger(l zerolog.Logger) Option { return func(p *Provider) { p.log = l } }

// WithBackoff sets the restart backoff: first delay, cap, and how long a
// child must stay up for the delay to reset to the first one.
// Defaults: 200 ms, 10 s, 30 s.
func WithBackoff(initial, max, healthy time.Duration) Option {
	return func(p *Provider) { p.backoffInitial, p.backoffMax, p.healthyAfter = initial, max, healthy }
}

// WithMaxMessage bounds one message from the server, and so the largest
// result a call can return (default DefaultMaxMessage).
func WithMaxMessage(n int64) Option { return func(p *Provider) { p.maxMessage = n } }

// WithClientInfo sets the name and version sent in initialize.
func WithClientInfo(name, version string) Option {
	return func(p *Provider) { p.clientName, p.clientVersion = name, version }
}

// Provider is a supervised MCP stdio server. It implements runtime.Provider.
type Provider struct {
	cfg            Config
	log            zerolog.Logger
	backoffInitial time.Duration
	backoffMax     time.Duration
	healthyAfter   time.Duration
	startTimeout   time.Duration
	clientName     string
	clientVersion  string
	maxMessage     int64
	clock          clock

	mu      sync.Mutex
	status  runtime.Status
	tools   []runtime.Tool
	current *session // nil unless ready
	stderr  string   // the last lines a failed child wrote to stderr
	// deadline is when the current (or last) start attempt gives up.
	deadline time.Time
	notify   func(runtime.Change)

	notifyMu sync.Mutex // serialises notify calls

	stop     context.CancelFunc
	done     chan struct{} // closed when the supervisor has returned
	closing  chan struct{}
	closeOne sync.Once
}

var (
	_ runtime.Provider       = (*Provider)(nil)
	_ runtime.StartDeadliner = (*Provider)(nil)
)

// New returns a provider for cfg; Start launches it.
func New(cfg Config, opts ...Option) *Provider {
	if cfg.Timeout <= 0 {
		cfg.Timeout = runtime.DefaultCallTimeout
	}
	p := &Provider{
		cfg:            cfg,
		log:            zerolog.Nop(),
		backoffInitial: 200 * time.Millisecond,
		backoffMax:     10 * time.Second,
		healthyAfter:   30 * time.Second,
		startTimeout:   cmp.Or(cfg.StartTimeout, DefaultStartTimeout),
		clientName:     "gnosis-host",
		clientVersion:  "0.1.0",
		clock:          wallClock{},
		status:         runtime.Status{State: runtime.StateStarting},
		closing:        make(chan struct{}),
	}
	for _, o := range opts {
		o(p)
	}
	p.log = p.log.With().Str("provider", cfg.Name).Logger()
	return p
}

// Name implements runtime.Provider.
func (p *Provider) Name() string { return p.cfg.Name }

// Prefix implements runtime.Provider.
func (p *Provider) Prefix() string { return p.cfg.Prefix }

// Tools implements runtime.Provider: the tools of the last discovery.
func (p *Provider) Tools() []runtime.Tool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]runtime.Tool(nil), p.tools...)
}

// Status implements runtime.Provider.
func (p *Provider) Status() runtime.Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

// Start implements runtime.Provider: it starts the supervisor and returns.
// ctx must outlive the provider; cancelling it stops the provider.
func (p *Provider) Start(ctx context.Context, notify func(runtime.Change)) error {
	p.mu.Lock()
	if p.done != nil {
		p.mu.Unlock()
		return errors.New("provider already started")
	}
	if notify == nil {
		notify = func(runtime.Change) {}
	}
	p.notify = notify
	ctx, p.stop = context.WithCancel(ctx)
	p.done = make(chan struct{})
	p.mu.Unlock()
	if p.cfg.Command == "" {
		err := errors.New("no command configured")
		p.setStatus(runtime.Status{State: runtime.StateDown, Err: err.Error()}, false)
		close(p.done)
		return err
	}
	go p.supervise(ctx)
	return nil
}

// Close implements runtime.Provider: it stops the child and its whole
// process tree, fails calls in flight with CANCELLED, and returns within
// about a second.
func (p *Provider) Close() error {
	p.closeOne.Do(func() { close(p.closing) })
	p.mu.Lock()
	stop, done := p.stop, p.done
	p.mu.Unlock()
	if stop == nil {
		return nil
	}
	stop()
	<-done
	return nil
}

// setStatus records st (and, with tools, that the tool list changed) and
// tells the runtime.
func (p *Provider) setStatus(st runtime.Status, toolsChanged bool) {
	p.notifyMu.Lock()
	defer p.notifyMu.Unlock()
	p.mu.Lock()
	changed := p.status != st
	p.status = st
	notify := p.notify
	p.mu.Unlock()
	if (changed || toolsChanged) && notify != nil {
		notify(runtime.Change{Provider: p.cfg.Name, Prefix: p.cfg.Prefix, Status: st, ToolsChanged: toolsChanged})
	}
}

// Call implements runtime.Provider: CallAsync, waited for.
func (p *Provider) Call(ctx context.Context, tool string, arguments json.RawMessage) (json.RawMessage, error) {
	return runtime.Await(func(done func(json.RawMessage, error)) { p.CallAsync(ctx, tool, arguments, done) })
}

// CallAsync implements runtime.AsyncCaller: it sends tools/call and returns.
// done runs on the goroutine that reads the server's messages when the
// server answers with a small result, so no goroutine waits on a call and
// none is woken to end it.
func (p *Provider) CallAsync(ctx context.Context, tool string, arguments json.RawMessage, done func(json.RawMessage, error)) {
	p.mu.Lock()
	s := p.current
	st := p.status
	p.mu.Unlock()
	if s == nil {
		msg := fmt.Sprintf("provider %q is %s", p.cfg.Name, st.State)
		if st.Err != "" {
			msg += ": " + st.Err
		}
		done(nil, &wire.Error{Code: wire.CodeProviderUnavailable, Message: msg})
		return
	}
	s.start(ctx, tool, arguments, p.cfg.Timeout, done)
}

// StartDeadline implements runtime.StartDeadliner: while the provider is
// starting, when the attempt gives up (its startTimeout after it began);
// the zero time otherwise.
func (p *Provider) StartDeadline() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.status.State != runtime.StateStarting {
		return time.Time{}
	}
	return p.deadline
}

// currentPID is the running child's pid, 0 if none (for tests and logs).
func (p *Provider) currentPID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current == nil {
		return 0
	}
	return p.current.cmd.Process.Pid
}

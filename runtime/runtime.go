package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/runtime/schema"
)

// Runtime is the Agent Capability Runtime. Create it with New, Start it once,
// then List, Describe, Execute and Health may be called from any goroutine.
type Runtime struct {
	// providers is replaced, never changed in place, under mu once New has
	// returned (SetProvider, RemoveProvider); index is its lock-free lookup.
	providers []Provider
	index     atomic.Pointer[providerIndex]
	policy    atomic.Pointer[Policy]
	validator Validator
	asserting Validator // the validator of the providers that assert formats
	custom    bool      // WithValidator set validator (and asserting)
	// assertFormats names the providers whose schemas assert formats in
	// every dialect (WithFormatAssertion, SetProvider with AssertingFormats); under mu.
	assertFormats map[string]bool
	log           zerolog.Logger
	events        func(Event)
	degraded      []string
	problems      map[string]string // SetProblem's reasons by source, under mu

	live  sync.Mutex // serialises Start, SetProvider, RemoveProvider and Close
	mu    sync.Mutex // serialises registry rebuilds and provider state
	state map[string]*providerState
	reg   atomic.Pointer[registry]

	started   atomic.Bool
	closed    atomic.Bool
	closeOnce sync.Once
	ctx       context.Context // the providers' lives, set by Start under mu
	stop      context.CancelFunc
	changed   chan struct{} // closed and replaced on every provider change
}

// providerIndex finds providers by name and by prefix.
type providerIndex struct {
	byName, byPrefix map[string]Provider
}

func newIndex(ps []Provider) *providerIndex {
	ix := &providerIndex{byName: map[string]Provider{}, byPrefix: map[string]Provider{}}
	for _, p := range ps {
		ix.byName[p.Name()] = p
		ix.byPrefix[p.Prefix()] = p
	}
	return ix
}

// providerNamed is the provider called name, nil if there is none.
func (r *Runtime) providerNamed(name string) Provider { return r.index.Load().byName[name] }

// providerWithPrefix is the provider whose prefix is prefix, nil if none.
func (r *Runtime) providerWithPrefix(prefix string) Provider { return r.index.Load().byPrefix[prefix] }

type providerState struct {
	status     Status
	discovered bool // the provider's tool list has been read at least once
}

// Health is what the health method reports.
type Health struct {
	// Status is "ok" when every provider is ready and the configuration is
	// sound, "degraded" otherwise.
	Status       string
	Capabilities int // every capability, meta-capabilities included
	Providers    []ProviderHealth
	Error        string // a configuration problem, if any
}

// ProviderHealth is one provider's entry in Health and in provider.state events.
type ProviderHealth struct {
	Name, Prefix string
	State        State
	Capabilities int
	Error        string
	// Stderr is what the server last wrote on stderr before it failed (its
	// last lines, bounded by the provider), from providers that keep it.
	Stderr string
	// Skipped lists the tools the server listed that are not capabilities
	// (a name that could hide or fake text, or looks like another tool's),
	// with the reason.
	Skipped []SkippedTool
}

// stderrKeeper is a provider that keeps its server's last stderr lines
// (mcpprovider.Provider does).
type stderrKeeper interface{ Stderr() string }

// Event kinds.
const (
	EventCapabilitiesChanged = "capabilities.changed"
	EventProviderState       = "provider.state"
)

// Event is pushed to the WithEvents callback: the capability list changed
// (Capabilities is the new total), or a provider's state changed (Provider).
type Event struct {
	Kind         string
	Capabilities int
	Provider     ProviderHealth
}

// Option configures a Runtime.
type Option func(*Runtime)

// WithProvider adds a provider; repeatable. A provider whose name or prefix
// is already taken, or whose prefix is the reserved "capabilities", is left
// out and the runtime reports itself degraded with the reason.
func WithProvider(p Provider) Option {
	return func(r *Runtime) {
		if err := fits(r.providers, p, ""); err != nil {
			r.degraded = append(r.degraded, err.Error())
			return
		}
		r.providers = append(r.providers, p)
	}
}

// WithPolicy sets the per-origin capability policy. Without it (and with
// the zero Policy) every provider capability is denied to every caller.
func WithPolicy(p Policy) Option { return func(r *Runtime) { r.policy.Store(&p) } }

// WithValidator replaces the schema validator (default NewValidator()),
// for every provider.
func WithValidator(v Validator) Option {
	return func(r *Runtime) { r.validator, r.asserting, r.custom = v, v, true }
}

// WithFormatAssertion makes the schemas of the named provider assert
// "format" in every dialect, for the formats runtime/schema checks
// exactly (a provider's configuration asks for it: "assertFormats").
// Without it, 2019-09 and 2020-12 schemas leave formats as annotations,
// as those drafts say by default.
func WithFormatAssertion(provider string) Option {
	return func(r *Runtime) {
		if r.assertFormats == nil {
			r.assertFormats = map[string]bool{}
		}
		r.assertFormats[provider] = true
	}
}

// WithLogger sets the logger (default: disabled).
func WithLogger(l zerolog.Logger) Option { return func(r *Runtime) { r.log = l } }

// WithEvents sets a callback for events. It is called from any goroutine and
// must not block long; events of one provider arrive in order.
func WithEvents(fn func(Event)) Option { return func(r *Runtime) { r.events = fn } }

// WithDegraded marks the runtime degraded for reason (a broken or missing
// configuration): Health shows status "degraded" and the reason as Error, and
// the meta-capabilities keep working.
func WithDegraded(reason string) Option {
	return func(r *Runtime) { r.degraded = append(r.degraded, reason) }
}

// New builds a Runtime. It starts nothing; call Start.
func New(opts ...Option) *Runtime {
	r := &Runtime{
		validator: NewValidator(),
		log:       zerolog.Nop(),
		state:     map[string]*providerState{},
		changed:   make(chan struct{}),
	}
	for _, o := range opts {
		o(r)
	}
	if !r.custom {
		r.asserting = NewValidator(schema.WithFormatAssertion(true))
	}
	for _, p := range r.providers {
		r.state[p.Name()] = &providerState{status: Status{State: StateStarting}}
	}
	r.index.Store(newIndex(r.providers))
	if r.policy.Load() == nil {
		r.policy.Store(&Policy{})
	}
	reg, _ := r.buildRegistry(nil) // meta schemas compile at their first call
	r.reg.Store(reg)
	return r
}

// Policy returns the policy in force.
func (r *Runtime) Policy() Policy { return *r.policy.Load() }

// SetPolicy replaces the policy; calls that start afterwards are judged by
// it (the user changed a site's grants).
func (r *Runtime) SetPolicy(p Policy) { r.policy.Store(&p) }

// Start starts every provider in the background and returns at once; they
// report starting → ready (or down) through events and Health. ctx bounds the
// providers' lives: cancelling it stops them like Close.
func (r *Runtime) Start(ctx context.Context) error {
	// Under live: a provider SetProvider replaces mid-way is never
	// started after it was closed.
	r.live.Lock()
	defer r.live.Unlock()
	r.mu.Lock()
	if !r.started.CompareAndSwap(false, true) {
		r.mu.Unlock()
		return errors.New("runtime already started")
	}
	r.ctx, r.stop = context.WithCancel(ctx)
	ctx, providers := r.ctx, r.providers
	r.mu.Unlock()
	var errs []error
	for _, p := range providers {
		if err := r.startProvider(ctx, p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// startProvider starts p, reporting it down if it cannot start.
func (r *Runtime) startProvider(ctx context.Context, p Provider) error {
	if err := p.Start(ctx, func(c Change) { r.onChange(p, c) }); err != nil {
		r.onChange(p, Change{Provider: p.Name(), Prefix: p.Prefix(), Status: Status{State: StateDown, Err: err.Error()}})
		return fmt.Errorf("starting provider %q: %w", p.Name(), err)
	}
	return nil
}

// WaitSettled blocks until no provider is starting (each is ready or down),
// or ctx ends. Front ends that answer one request and exit use it; a serving
// host need not.
func (r *Runtime) WaitSettled(ctx context.Context) error {
	for {
		r.mu.Lock()
		settled := true
		for _, s := range r.state {
			if s.status.State == StateStarting {
				settled = false
			}
		}
		ch := r.changed
		r.mu.Unlock()
		if settled {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Close stops every provider (and their process trees) concurrently.
func (r *Runtime) Close() error {
	var err error
	r.closeOnce.Do(func() {
		r.live.Lock()
		defer r.live.Unlock()
		r.mu.Lock()
		r.closed.Store(true)
		stop, providers := r.stop, r.providers
		r.mu.Unlock()
		if stop != nil {
			stop()
		}
		errs := make([]error, len(providers))
		var wg sync.WaitGroup
		for i, p := range providers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if e := p.Close(); e != nil {
					errs[i] = fmt.Errorf("closing provider %q: %w", p.Name(), e)
				}
			}()
		}
		wg.Wait()
		err = errors.Join(errs...)
	})
	return err
}

// onChange applies a provider's change: rebuild the registry if its tools
// changed, then emit events.
func (r *Runtime) onChange(p Provider, c Change) {
	r.mu.Lock()
	if r.providerNamed(p.Name()) != p {
		// Removed or replaced (SetProvider, RemoveProvider): what it
		// reports while it stops is no longer the runtime's.
		r.mu.Unlock()
		return
	}
	st := r.state[p.Name()]
	stateChanged := st.status != c.Status
	st.status = c.Status
	var fresh []*lazySchema
	if c.ToolsChanged {
		st.discovered = true
		var reg *registry
		reg, fresh = r.buildRegistry(r.reg.Load())
		r.reg.Store(reg)
	}
	reg := r.reg.Load()
	ph := r.providerHealth(p, reg)
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()

	if stateChanged {
		l := r.log.Info()
		if c.Status.State == StateDown {
			l = r.log.Warn()
		}
		l.Str("provider", p.Name()).Str("state", string(c.Status.State)).Str("error", RedactText(c.Status.Err)).Msg("provider state")
		r.emit(Event{Kind: EventProviderState, Capabilities: len(reg.list), Provider: ph})
	}
	if c.ToolsChanged {
		r.log.Info().Str("provider", p.Name()).Int("tools", ph.Capabilities).Int("capabilities", len(reg.list)).Msg("capabilities changed")
		r.emit(Event{Kind: EventCapabilitiesChanged, Capabilities: len(reg.list)})
	}
	if len(fresh) > 0 {
		go r.precompile(fresh)
	}
}

func (r *Runtime) emit(e Event) {
	if r.events != nil {
		r.events(e)
	}
}

// providerHealth must be called with r.mu held.
func (r *Runtime) providerHealth(p Provider, reg *registry) ProviderHealth {
	st := r.state[p.Name()]
	return ProviderHealth{
		Name:         p.Name(),
		Prefix:       p.Prefix(),
		State:        st.status.State,
		Capabilities: reg.perProvider[p.Name()],
		Error:        st.status.Err,
		Stderr:       stderrOf(p),
		Skipped:      reg.skipped[p.Name()],
	}
}

// stderrOf is p's last stderr lines, "" if it keeps none.
func stderrOf(p Provider) string {
	if k, ok := p.(stderrKeeper); ok {
		return k.Stderr()
	}
	return ""
}

// Health reports the runtime's and every provider's state.
func (r *Runtime) Health() Health {
	r.mu.Lock()
	defer r.mu.Unlock()
	reg := r.reg.Load()
	h := Health{Status: "ok", Capabilities: len(reg.list), Providers: []ProviderHealth{}}
	if reasons := r.reasons(); len(reasons) > 0 {
		h.Status = "degraded"
		h.Error = joinReasons(reasons)
	}
	for _, p := range r.providers {
		ph := r.providerHealth(p, reg)
		if ph.State != StateReady {
			h.Status = "degraded"
		}
		h.Providers = append(h.Providers, ph)
	}
	return h
}

func joinReasons(rs []string) string {
	out := rs[0]
	for _, s := range rs[1:] {
		out += "; " + s
	}
	return out
}

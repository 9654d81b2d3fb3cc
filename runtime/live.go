package runtime

import (
	"errors"
	"fmt"
	"sort"

	"github.com/gnosis/gnosis/runtime/wire"
)

// StateRemoved is the state of the provider.state event for a provider
// RemoveProvider took away or SetProvider replaced. Health never shows it:
// the provider is no longer there.
const StateRemoved State = "removed"

// errClosed is SetProvider's answer once the runtime is closing.
var errClosed = errors.New("the runtime is shutting down")

// fits says why p cannot join providers, where the provider named except
// (the one p replaces) does not count; nil when it can.
func fits(providers []Provider, p Provider, except string) error {
	if p.Prefix() == metaPrefix || p.Prefix() == "" {
		return fmt.Errorf("provider %q: prefix %q is not allowed", p.Name(), p.Prefix())
	}
	for _, q := range providers {
		switch {
		case q.Name() == except:
		case q.Name() == p.Name():
			return fmt.Errorf("provider %q is configured twice", p.Name())
		case q.Prefix() == p.Prefix():
			return fmt.Errorf("provider %q: prefix %q is already used by %q", p.Name(), p.Prefix(), q.Name())
		}
	}
	return nil
}

// SetProvider adds p to the runtime, or replaces the provider of the same
// name, while it serves: the user added or edited an MCP server. The
// replaced provider is closed (its calls in flight end CANCELLED) and its
// capabilities leave the registry; p starts at once when the runtime has
// started (else with Start) and reports starting → ready or down like any
// provider. Events: provider.state (starting) for p, and
// capabilities.changed when the replaced provider's tools went away. A
// prefix that is reserved or used by another provider is an error, and
// nothing changes.
//
// AssertingFormats(true) among opts makes p's schemas assert "format" in
// every dialect, as WithFormatAssertion does for a provider the runtime
// starts with; without it, p's schemas leave formats as their drafts say.
func (r *Runtime) SetProvider(p Provider, opts ...SetOption) error {
	var o setOptions
	for _, opt := range opts {
		opt(&o)
	}
	r.live.Lock()
	defer r.live.Unlock()
	r.mu.Lock()
	if r.closed.Load() {
		r.mu.Unlock()
		return errClosed
	}
	if err := fits(r.providers, p, p.Name()); err != nil {
		r.mu.Unlock()
		return err
	}
	old := r.providerNamed(p.Name())
	list := make([]Provider, 0, len(r.providers)+1)
	for _, q := range r.providers {
		if q == old {
			q = p // an edited provider keeps its place
		}
		list = append(list, q)
	}
	if old == nil {
		list = append(list, p)
	}
	toolsGone := old != nil && r.state[p.Name()].discovered
	if o.assertFormats {
		if r.assertFormats == nil {
			r.assertFormats = map[string]bool{}
		}
		r.assertFormats[p.Name()] = true
	} else {
		delete(r.assertFormats, p.Name())
	}
	r.swap(list)
	r.state[p.Name()] = &providerState{status: Status{State: StateStarting}}
	if toolsGone {
		reg, _ := r.buildRegistry(r.reg.Load()) // the provider's tools leave: nothing new to compile
		r.reg.Store(reg)
	}
	reg := r.reg.Load()
	ph := r.providerHealth(p, reg)
	ctx, started := r.ctx, r.started.Load()
	r.mu.Unlock()

	if old != nil {
		if err := old.Close(); err != nil {
			r.log.Warn().Err(err).Str("provider", old.Name()).Msg("closing the replaced provider")
		}
	}
	r.log.Info().Str("provider", p.Name()).Str("prefix", p.Prefix()).Bool("replaced", old != nil).Msg("provider set")
	r.emit(Event{Kind: EventProviderState, Capabilities: len(reg.list), Provider: ph})
	if toolsGone {
		r.emit(Event{Kind: EventCapabilitiesChanged, Capabilities: len(reg.list)})
	}
	if started {
		return r.startProvider(ctx, p)
	}
	return nil
}

// RemoveProvider closes the provider called name and takes it and its
// capabilities out of the runtime while it serves. Events: provider.state
// with state "removed", then capabilities.changed if it had listed tools.
// An unknown name is PROVIDER_NOT_FOUND.
func (r *Runtime) RemoveProvider(name string) error {
	r.live.Lock()
	defer r.live.Unlock()
	r.mu.Lock()
	old := r.providerNamed(name)
	if old == nil {
		r.mu.Unlock()
		return wire.Errorf(wire.CodeProviderNotFound, "no provider named %q", name)
	}
	list := make([]Provider, 0, len(r.providers))
	for _, q := range r.providers {
		if q != old {
			list = append(list, q)
		}
	}
	toolsGone := r.state[name].discovered
	r.swap(list)
	delete(r.state, name)
	if toolsGone {
		reg, _ := r.buildRegistry(r.reg.Load()) // the provider's tools leave: nothing new to compile
		r.reg.Store(reg)
	}
	total := len(r.reg.Load().list)
	r.mu.Unlock()

	if err := old.Close(); err != nil {
		r.log.Warn().Err(err).Str("provider", name).Msg("closing the removed provider")
	}
	r.log.Info().Str("provider", name).Msg("provider removed")
	r.emit(Event{Kind: EventProviderState, Capabilities: total, Provider: ProviderHealth{Name: name, Prefix: old.Prefix(), State: StateRemoved}})
	if toolsGone {
		r.emit(Event{Kind: EventCapabilitiesChanged, Capabilities: total})
	}
	return nil
}

// swap installs list as the providers; r.mu must be held. Waiters of
// WaitSettled look again.
func (r *Runtime) swap(list []Provider) {
	r.providers = list
	r.index.Store(newIndex(list))
	close(r.changed)
	r.changed = make(chan struct{})
}

// SetProblem records (or, with reason "", clears) a configuration problem
// from source: while any is recorded, Health is degraded and its Error says
// them all. The host re-reads its config file's problems under one source
// each time it writes the file.
func (r *Runtime) SetProblem(source, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if reason == "" {
		delete(r.problems, source)
		return
	}
	if r.problems == nil {
		r.problems = map[string]string{}
	}
	r.problems[source] = reason
}

// reasons is every degradation reason: WithDegraded's, then SetProblem's
// by source. r.mu must be held.
func (r *Runtime) reasons() []string {
	out := append([]string(nil), r.degraded...)
	sources := make([]string, 0, len(r.problems))
	for s := range r.problems {
		sources = append(sources, s)
	}
	sort.Strings(sources)
	for _, s := range sources {
		out = append(out, r.problems[s])
	}
	return out
}

// A SetOption changes how SetProvider takes its provider.
type SetOption func(*setOptions)

type setOptions struct{ assertFormats bool }

// AssertingFormats makes the provider's schemas assert "format" in every
// dialect when on (its configuration's "assertFormats"), so a server added
// or edited while the host serves is judged as it would be at the next start.
func AssertingFormats(on bool) SetOption { return func(o *setOptions) { o.assertFormats = on } }

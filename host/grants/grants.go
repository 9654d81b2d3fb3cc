package grants

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/host/method"
	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
)

// Runtime is what grants needs of the capability runtime.
type Runtime interface {
	List() []runtime.Summary
	Policy() runtime.Policy
	SetPolicy(runtime.Policy)
	// Health names the configured providers and their prefixes.
	Health() runtime.Health
}

// Grants serves the grant methods for one host process.
type Grants struct {
	rt         Runtime
	configPath string
	log        zerolog.Logger
	ask        approvals
	writeMu    sync.Mutex // one policy.set at a time: read, change, write the file
	saved      func()     // called after each write of the config file

	clashMu sync.Mutex
	clashes []config.Clash // policy keys of the file that name one origin
}

// Option configures Grants.
type Option func(*Grants)

// WithAskTimeout sets how long an "ask" call waits for the user (default
// DefaultAskTimeout).
func WithAskTimeout(d time.Duration) Option {
	return func(g *Grants) {
		if d > 0 {
			g.ask.timeout = d
		}
	}
}

// WithLogger sets the logger (default: disabled).
func WithLogger(l zerolog.Logger) Option { return func(g *Grants) { g.log = l } }

// WithClashes tells the origins whose policy keys clash in the config file
// (config.Policy.Clashes): policy.get and policy.set report them, until a
// policy.set of the origin writes one key in place of them all.
func WithClashes(c []config.Clash) Option { return func(g *Grants) { g.clashes = c } }

// WithSaved sets a function called after each write of the config file
// (the host re-reads the file's problems for health).
func WithSaved(fn func()) Option { return func(g *Grants) { g.saved = fn } }

// New serves grants for rt, persisting them to the config file at configPath.
func New(rt Runtime, configPath string, opts ...Option) *Grants {
	g := &Grants{rt: rt, configPath: configPath, log: zerolog.Nop(),
		ask: approvals{timeout: DefaultAskTimeout, pending: map[string]chan bool{}}}
	for _, o := range opts {
		o(g)
	}
	return g
}

// Methods returns the host methods: policy.get, policy.set and approve.
func (g *Grants) Methods() method.Table {
	return method.Table{
		"policy.get": func(_ context.Context, _, params json.RawMessage, _ func(any) error) (any, error) {
			return g.get(params)
		},
		"policy.set": func(_ context.Context, _, params json.RawMessage, _ func(any) error) (any, error) {
			return g.set(params)
		},
		"approve": func(_ context.Context, _, params json.RawMessage, _ func(any) error) (any, error) {
			return g.approve(params)
		},
	}
}

// View is the reply of policy.get and policy.set: how the host decides for
// the origin, for every provider capability registered now.
type View struct {
	Origin     string                      `json:"origin"`
	Configured bool                        `json:"configured"`
	Decisions  map[string]runtime.Decision `json:"decisions"`
	// Clash is present when the policy entry that judges the origin (its
	// own, or a glob's) is written under several keys in the config file:
	// the origin is then denied everything until one key is left.
	Clash *config.Clash `json:"clash,omitempty"`
}

func (g *Grants) view(origin string) View {
	p := g.rt.Policy()
	rule := p.RuleFor(origin)
	v := View{Origin: origin, Configured: p.HasExact(origin), Decisions: map[string]runtime.Decision{}, Clash: g.clashFor(origin, p)}
	for _, name := range g.registered() {
		v.Decisions[name] = rule.Decide(name)
	}
	return v
}

// clashFor returns the clash that judges origin: its own keys', else (when
// it has no entry of its own) a glob's that matches it.
func (g *Grants) clashFor(origin string, p runtime.Policy) *config.Clash {
	g.clashMu.Lock()
	defer g.clashMu.Unlock()
	exact := p.HasExact(origin)
	for _, c := range g.clashes {
		if c.Origin == origin || (!exact && strings.Contains(c.Origin, "*") && runtime.MatchPattern(c.Origin, origin)) {
			c := c
			return &c
		}
	}
	return nil
}

// resolved forgets origin's clash: policy.set wrote one key in place of
// every spelling, then reports the write.
func (g *Grants) resolved(origin string) {
	g.clashMu.Lock()
	kept := g.clashes[:0:0]
	for _, c := range g.clashes {
		if c.Origin != origin {
			kept = append(kept, c)
		}
	}
	g.clashes = kept
	g.clashMu.Unlock()
	if g.saved != nil {
		g.saved()
	}
}

func originParam(params json.RawMessage) (string, error) {
	var p struct {
		Origin *string `json:"origin"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Origin == nil {
		return "", wire.Errorf(wire.CodeInvalidRequest, "params.origin must be a string")
	}
	o, err := runtime.NormalizeOrigin(*p.Origin)
	if err != nil {
		return "", wire.Errorf(wire.CodeInvalidRequest, "params.origin: %v", err)
	}
	return o, nil
}

func (g *Grants) get(params json.RawMessage) (any, error) {
	o, err := originParam(params)
	if err != nil {
		return nil, err
	}
	return g.view(o), nil
}

// set replaces one origin's exact entry with the user's choices.
func (g *Grants) set(params json.RawMessage) (any, error) {
	o, err := originParam(params)
	if err != nil {
		return nil, err
	}
	prefixes := map[string]string{}
	for _, p := range g.rt.Health().Providers {
		prefixes[p.Prefix] = p.Name
	}
	grants, err := decodeGrants(params, g.registered(), prefixes)
	if err != nil {
		return nil, err
	}
	rule := ruleOf(grants)
	g.writeMu.Lock()
	defer g.writeMu.Unlock()
	if old, ok := g.rt.Policy().Origins[o]; ok {
		rule = keepUnseen(rule, old, g.registered())
	}
	if err := config.SetOrigin(g.configPath, o, rule); err != nil {
		return nil, wire.Errorf(wire.CodeExecutionError, "saving the grants: %v", err)
	}
	pol := g.rt.Policy()
	origins := make(map[string]runtime.Rule, len(pol.Origins)+1)
	for k, r := range pol.Origins {
		origins[k] = r
	}
	origins[o] = rule
	pol.Origins = origins
	g.rt.SetPolicy(pol)
	g.resolved(o)
	g.log.Info().Str("origin", o).Int("allow", len(rule.Allow)).Int("ask", len(rule.Ask)).Int("deny", len(rule.Deny)).Msg("grants changed")
	return g.view(o), nil
}

// ruleOf turns per-capability decisions into a rule, sorted so the file is
// stable.
func ruleOf(grants map[string]runtime.Decision) runtime.Rule {
	names := make([]string, 0, len(grants))
	for name := range grants {
		names = append(names, name)
	}
	sort.Strings(names)
	r := runtime.Rule{Allow: []string{}, Ask: []string{}, Deny: []string{}}
	for _, n := range names {
		switch grants[n] {
		case runtime.Allow:
			r.Allow = append(r.Allow, n)
		case runtime.Ask:
			r.Ask = append(r.Ask, n)
		default:
			r.Deny = append(r.Deny, n)
		}
	}
	return r
}

func trimJSON(err error) string {
	if err == nil {
		return "missing"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// registered returns the provider capabilities registered now.
func (g *Grants) registered() []string {
	var names []string
	for _, s := range g.rt.List() {
		if !strings.HasPrefix(s.Name, runtime.MetaPrefix+".") {
			names = append(names, s.Name)
		}
	}
	return names
}

// keepUnseen carries over the entries of old that concern no capability
// registered now and that the user's new choice does not name: the grants
// of a provider that is down or still starting survive a save made while
// its tools were not on the page.
func keepUnseen(rule, old runtime.Rule, registered []string) runtime.Rule {
	named := map[string]bool{}
	for _, l := range [][]string{rule.Allow, rule.Ask, rule.Deny} {
		for _, n := range l {
			named[n] = true
		}
	}
	unseen := func(pattern string) bool {
		if named[pattern] {
			return false
		}
		for _, n := range registered {
			if runtime.MatchPattern(pattern, n) {
				return false
			}
		}
		return true
	}
	keep := func(dst, src []string) []string {
		for _, p := range src {
			if unseen(p) {
				dst = append(dst, p)
			}
		}
		sort.Strings(dst)
		return dst
	}
	return runtime.Rule{Allow: keep(rule.Allow, old.Allow), Ask: keep(rule.Ask, old.Ask), Deny: keep(rule.Deny, old.Deny)}
}

package grants

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
)

// Runtime is what grants needs of the capability runtime.
type Runtime interface {
	List() []runtime.Summary
	Policy() runtime.Policy
	SetPolicy(runtime.Policy)
}

// Method is a host method in the shape the host adapts to its session.
type Method func(ctx context.Context, id, params json.RawMessage, emit func(any) error) (any, error)

// Grants serves the grant methods for one host process.
type Grants struct {
	rt         Runtime
	configPath string
	log        zerolog.Logger
	ask        approvals
	writeMu    sync.Mutex // one policy.set at a time: read, change, write the file
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
func (g *Grants) Methods() map[string]Method {
	return map[string]Method{
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
}

func (g *Grants) view(origin string) View {
	p := g.rt.Policy()
	rule := p.RuleFor(origin)
	v := View{Origin: origin, Configured: p.HasExact(origin), Decisions: map[string]runtime.Decision{}}
	for _, name := range g.registered() {
		v.Decisions[name] = rule.Decide(name)
	}
	return v
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
	var p struct {
		Grants map[string]runtime.Decision `json:"grants"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Grants == nil {
		return nil, wire.Errorf(wire.CodeInvalidRequest, `params.grants must be {"<prefix>.<tool>": "allow"|"ask"|"deny", ...}: %v`, trimJSON(err))
	}
	rule, err := ruleOf(p.Grants)
	if err != nil {
		return nil, err
	}
	g.writeMu.Lock()
	defer g.writeMu.Unlock()
	if old, ok := g.rt.Policy().Origins[o]; ok {
		rule = keepUnseen(rule, old, g.registered())
	}
	if err := writeOrigin(g.configPath, o, rule); err != nil {
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
	g.log.Info().Str("origin", o).Int("allow", len(rule.Allow)).Int("ask", len(rule.Ask)).Int("deny", len(rule.Deny)).Msg("grants changed")
	return g.view(o), nil
}

// ruleOf turns per-capability decisions into a rule of exact names, sorted
// so the file is stable.
func ruleOf(grants map[string]runtime.Decision) (runtime.Rule, error) {
	names := make([]string, 0, len(grants))
	for name := range grants {
		if err := checkGrantName(name); err != nil {
			return runtime.Rule{}, err
		}
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
	return r, nil
}

// checkGrantName accepts "<prefix>.<tool>" names only: a grant is for one
// capability the user saw, never a pattern.
func checkGrantName(name string) error {
	prefix, tool, ok := strings.Cut(name, ".")
	if !ok || prefix == "" || tool == "" || prefix == runtime.MetaPrefix || strings.ContainsAny(name, "*") ||
		strings.ContainsFunc(name, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		return wire.Errorf(wire.CodeInvalidRequest, "grant %q is not a provider capability name (<prefix>.<tool>)", name)
	}
	return nil
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

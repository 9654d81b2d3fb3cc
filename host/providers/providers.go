package providers

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/host/method"
	"github.com/gnosis/gnosis/host/redact"
	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/mcpprovider"
	"github.com/gnosis/gnosis/runtime/wire"
)

// Runtime is what this package needs of the capability runtime.
type Runtime interface {
	Health() runtime.Health
	List() []runtime.Summary
	SetProvider(runtime.Provider, ...runtime.SetOption) error
	RemoveProvider(name string) error
}

// Build makes the runtime's provider for a config entry.
type Build func(config.Provider) runtime.Provider

// MCP builds MCP stdio providers (runtime/mcpprovider), as the host runs
// every configured server: logging to log, introducing themselves as
// gnosis-host version.
func MCP(log zerolog.Logger, version string) Build {
	return func(c config.Provider) runtime.Provider {
		return mcpprovider.New(mcpprovider.Config{
			Name: c.Name, Command: c.Command, Args: c.Args, Env: c.Env, Prefix: c.Prefix,
			Timeout: time.Duration(c.Timeout), StartTimeout: time.Duration(max(c.StartTimeout, 0)),
		}, mcpprovider.WithLogger(log), mcpprovider.WithClientInfo("gnosis-host", version))
	}
}

// Providers serves the provider methods for one host process.
type Providers struct {
	rt         Runtime
	configPath string
	build      Build
	getenv     func(string) string
	log        zerolog.Logger
	saved      func()
	secrets    *redact.Set
	checks     chan struct{} // a slot for each check that may run at once

	mu sync.Mutex // one change at a time: validate, write the file, apply
}

// Option configures Providers.
type Option func(*Providers)

// WithSecrets masks secrets (by value and by pattern) in what
// providers.list and providers.check report of a server (its arguments, its
// error, its stderr); providers.set records there the secrets of the env it
// saves.
func WithSecrets(s *redact.Set) Option { return func(p *Providers) { p.secrets = s } }

// WithLogger sets the logger (default: disabled).
func WithLogger(l zerolog.Logger) Option { return func(p *Providers) { p.log = l } }

// WithGetenv sets how the environment is read (default os.Getenv): the
// variables that override the default provider (config.EnvManaged).
func WithGetenv(fn func(string) string) Option { return func(p *Providers) { p.getenv = fn } }

// WithSaved sets a function called after each write of the config file
// (the host re-reads the file's problems for health).
func WithSaved(fn func()) Option { return func(p *Providers) { p.saved = fn } }

// MaxChecks bounds the providers.check runs at once; more wait their turn.
const MaxChecks = 2

// New serves the provider methods for rt, writing to the config file at
// configPath and making providers with build.
func New(rt Runtime, configPath string, build Build, opts ...Option) *Providers {
	p := &Providers{rt: rt, configPath: configPath, build: build, getenv: os.Getenv, log: zerolog.Nop(),
		checks: make(chan struct{}, MaxChecks)}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Methods returns providers.list, providers.set, providers.remove and
// providers.check.
func (p *Providers) Methods() method.Table {
	return method.Table{
		"providers.list": func(context.Context, json.RawMessage, json.RawMessage, func(any) error) (any, error) {
			return p.list(), nil
		},
		"providers.set": func(_ context.Context, _, params json.RawMessage, _ func(any) error) (any, error) {
			return p.set(params)
		},
		"providers.remove": func(_ context.Context, _, params json.RawMessage, _ func(any) error) (any, error) {
			return p.remove(params)
		},
		"providers.check": func(ctx context.Context, _, params json.RawMessage, _ func(any) error) (any, error) {
			return p.check(ctx, params)
		},
	}
}

// Listed is one provider in providers.list (and the reply of
// providers.set): its configuration, without environment values, and its
// live state as health reports it.
type Listed struct {
	Name         string   `json:"name"`
	Prefix       string   `json:"prefix"`
	Command      string   `json:"command"`
	Args         []string `json:"args"`
	EnvNames     []string `json:"envNames"`
	Timeout      float64  `json:"timeout"`      // seconds
	StartTimeout float64  `json:"startTimeout"` // seconds
	// ManagedBy names the environment variable that overrides this entry
	// when the host starts; such an entry cannot be changed here.
	ManagedBy    string        `json:"managedBy,omitempty"`
	State        runtime.State `json:"state"`
	Capabilities int           `json:"capabilities"`
	Tools        []string      `json:"tools"`
	Error        string        `json:"error,omitempty"`
	Stderr       string        `json:"stderr,omitempty"`
}

// StateNotRunning is the state of an entry of the config file the runtime
// does not run (added by hand since the host started, or refused at start:
// the top-level problem says why).
const StateNotRunning runtime.State = "not running"

// listReply is the reply of providers.list.
type listReply struct {
	Providers []Listed `json:"providers"`
	// Config is the config file's path; Problem what is wrong with the file,
	// if anything (an entry it had to drop, a syntax error).
	Config  string `json:"config"`
	Problem string `json:"problem,omitempty"`
}

func (p *Providers) list() listReply {
	cfg, _, problem := config.Load(p.configLoadEnv)
	out := listReply{Providers: []Listed{}, Config: p.configPath}
	if problem != nil {
		out.Problem = problem.Error()
	}
	for _, c := range cfg.Providers {
		out.Providers = append(out.Providers, p.listed(c))
	}
	return out
}

// configLoadEnv is the environment config.Load sees: the host's, with the
// config file this host serves.
func (p *Providers) configLoadEnv(k string) string {
	if k == config.EnvConfig {
		return p.configPath
	}
	return p.getenv(k)
}

// listed combines an entry with the runtime's view of it.
func (p *Providers) listed(c config.Provider) Listed {
	l := Listed{Name: c.Name, Prefix: c.Prefix, Command: c.Command, Args: maskArgs(c.Args, p.secrets), EnvNames: slices.Sorted(maps.Keys(c.Env)),
		Timeout: time.Duration(c.Timeout).Seconds(), StartTimeout: startTimeout(c).Seconds(),
		ManagedBy: config.EnvManaged(c.Name, p.getenv), State: StateNotRunning, Tools: []string{}}
	if l.Args == nil {
		l.Args = []string{}
	}
	if l.EnvNames == nil {
		l.EnvNames = []string{}
	}
	for _, ph := range p.rt.Health().Providers {
		if ph.Name == c.Name {
			l.State, l.Capabilities, l.Error, l.Stderr = ph.State, ph.Capabilities, p.secrets.Redact(ph.Error), p.secrets.Redact(ph.Stderr)
			l.Prefix = ph.Prefix
		}
	}
	if l.State != StateNotRunning {
		for _, s := range p.rt.List() {
			if strings.HasPrefix(s.Name, l.Prefix+".") {
				l.Tools = append(l.Tools, s.Name)
			}
		}
	}
	return l
}

// DefaultStartTimeout is what a provider entry without startTimeout gets
// (mcpprovider.DefaultStartTimeout).
const DefaultStartTimeout = mcpprovider.DefaultStartTimeout

func startTimeout(c config.Provider) time.Duration {
	if c.StartTimeout > 0 {
		return time.Duration(c.StartTimeout)
	}
	return DefaultStartTimeout
}

// set validates an entry, writes it into the config file and applies it.
func (p *Providers) set(params json.RawMessage) (any, error) {
	e, err := decodeEntry(params, true)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if v := config.EnvManaged(e.Name, p.getenv); v != "" {
		return nil, invalid("name", "provider %q is set by the environment variable %s when the host starts; unset it to manage %q here", e.Name, v, e.Name)
	}
	cfg, _, _ := config.Load(p.configLoadEnv)
	current := findProvider(cfg.Providers, e.Name)
	if e.Prefix == "" {
		e.Prefix = config.PrefixFor(e.Name)
	}
	if err := p.prefixFree(e.Prefix, e.Name, cfg.Providers); err != nil {
		return nil, err
	}
	if kind, problem, fix := program(e.Command); kind != "" {
		return nil, invalid("command", "%s: %s", problem, fix)
	}
	env, err := keepEnv(e.Env, current)
	if err != nil {
		return nil, err
	}
	if e.Args, err = restoreArgs(e.Args, storedArgs(current)); err != nil {
		return nil, err
	}
	entry := config.Provider{Name: e.Name, Command: e.Command, Args: e.Args, Env: env, Prefix: e.Prefix,
		Timeout: config.Duration(e.Timeout), StartTimeout: config.Duration(e.StartTimeout),
		AssertFormats: current != nil && current.AssertFormats} // a config-file setting: an edit keeps it
	if entry.Timeout <= 0 {
		entry.Timeout = config.Duration(runtime.DefaultCallTimeout)
	}
	if err := config.SetProvider(p.configPath, entry); err != nil {
		return nil, wire.Errorf(wire.CodeExecutionError, "saving provider %q: %v", e.Name, err)
	}
	p.changed()
	p.secrets.AddEnv(env)
	p.log.Info().Str("provider", e.Name).Str("prefix", e.Prefix).Str("command", e.Command).Int("args", len(e.Args)).
		Strs("env", slices.Sorted(maps.Keys(env))).Bool("replaced", current != nil).Msg("provider saved")
	if err := p.rt.SetProvider(p.build(entry), runtime.AssertingFormats(entry.AssertFormats)); err != nil {
		return nil, wire.Errorf(wire.CodeExecutionError, "provider %q is saved in %s but could not start now: %v; it starts with the host next time", e.Name, p.configPath, err)
	}
	return p.listed(entry), nil
}

// prefixFree checks that no provider but the one called name uses prefix,
// in the file or in the runtime.
func (p *Providers) prefixFree(prefix, name string, file []config.Provider) error {
	for _, c := range file {
		if c.Prefix == prefix && c.Name != name {
			return invalid("prefix", "%q is the prefix of provider %q; each provider needs its own", prefix, c.Name)
		}
	}
	for _, ph := range p.rt.Health().Providers {
		if ph.Prefix == prefix && ph.Name != name {
			return invalid("prefix", "%q is the prefix of provider %q; each provider needs its own", prefix, ph.Name)
		}
	}
	return nil
}

func findProvider(ps []config.Provider, name string) *config.Provider {
	for i := range ps {
		if ps[i].Name == name {
			return &ps[i]
		}
	}
	return nil
}

// storedArgs are current's arguments (none when there is no current).
func storedArgs(current *config.Provider) []string {
	if current == nil {
		return nil
	}
	return current.Args
}

// keepEnv resolves null values to the values current has now.
func keepEnv(env map[string]*string, current *config.Provider) (map[string]string, error) {
	out := make(map[string]string, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		v := env[k]
		if v != nil {
			out[k] = *v
			continue
		}
		old, ok := "", false
		if current != nil {
			old, ok = current.Env[k]
		}
		if !ok {
			return nil, invalid("env", "%s is null, which keeps its stored value, but the provider has none stored: give its value", k)
		}
		out[k] = old
	}
	return out, nil
}

// remove takes a provider out of the config file and the runtime.
func (p *Providers) remove(params json.RawMessage) (any, error) {
	raw, ok := decodeObject(params)
	if !ok {
		return nil, wire.Errorf(wire.CodeInvalidRequest, "params must be an object with name")
	}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if k != "name" {
			return nil, invalid(k, "unknown field; providers.remove takes name")
		}
	}
	name, err := stringField(raw, "name", true)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if v := config.EnvManaged(name, p.getenv); v != "" {
		return nil, invalid("name", "provider %q is set by the environment variable %s when the host starts; unset it to remove %q", name, v, name)
	}
	fileErr := config.RemoveProvider(p.configPath, name)
	switch {
	case errors.Is(fileErr, config.ErrNoProvider):
	case fileErr != nil:
		return nil, wire.Errorf(wire.CodeExecutionError, "removing provider %q: %v", name, fileErr)
	default:
		p.changed()
	}
	rtErr := p.rt.RemoveProvider(name)
	if fileErr != nil && rtErr != nil {
		return nil, wire.Errorf(wire.CodeProviderNotFound, "no provider named %q", name)
	}
	p.log.Info().Str("provider", name).Msg("provider removed")
	return removeReply{Name: name, Removed: true}, nil
}

type removeReply struct {
	Name    string `json:"name"`
	Removed bool   `json:"removed"`
}

func (p *Providers) changed() {
	if p.saved != nil {
		p.saved()
	}
}

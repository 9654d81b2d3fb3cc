package runtime

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"sync"

	"github.com/gnosis/gnosis/runtime/wire"
)

// registry is an immutable snapshot of every capability. The runtime swaps in
// a new one when a provider's tools change, so lookups never lock.
type registry struct {
	byName      map[string]*entry
	list        []Summary // sorted by name
	perProvider map[string]int
	// skipped lists, per provider, the tools left out and why.
	skipped map[string][]SkippedTool
}

type entry struct {
	cap   Capability
	tool  string // the provider's own tool name
	input *inputSchema
	// unavailable says why the tool cannot run through this host ("" when
	// it can), read once from the tool object at discovery.
	unavailable string
}

// inputSchema is a capability's input schema, compiled on first use: a
// session calls few of a server's tools, and compiling every schema at
// discovery delayed the provider's readiness by the whole compilation.
// Registries built from the same tool list share it, so each schema is
// compiled once.
type inputSchema struct {
	raw  json.RawMessage
	name string // the capability's, for the log
	once sync.Once
	// schema is nil when it failed to compile (validation is then skipped:
	// see err, logged at the first call).
	schema Schema
	err    error
}

// compiledInput returns e's compiled input schema, compiling it the first
// time. A schema that does not compile is logged then, once, with what its
// compilation left out (Warnings) for one that does.
func (r *Runtime) compiledInput(e *entry) (Schema, error) {
	in := e.input
	in.once.Do(func() {
		in.schema, in.err = r.validator.Compile(in.raw)
		if in.err != nil {
			in.schema = nil
			r.log.Warn().Err(in.err).Str("capability", in.name).Msg("input schema does not compile; arguments will not be validated")
		} else if w, ok := in.schema.(interface{ Warnings() []string }); ok {
			for _, msg := range w.Warnings() {
				r.log.Warn().Str("capability", in.name).Msg(msg)
			}
		}
	})
	return in.schema, in.err
}

// defaultInputSchema stands in for a tool that sent no inputSchema.
var defaultInputSchema = json.RawMessage(`{"type":"object"}`)

// buildRegistry must be called with r.mu held. It reuses prev's input
// schemas for unchanged schema bytes, so each schema is compiled once (on
// first use: see inputSchema).
func (r *Runtime) buildRegistry(prev *registry) *registry {
	reg := &registry{byName: map[string]*entry{}, perProvider: map[string]int{}, skipped: map[string][]SkippedTool{}}
	for _, m := range metaCapabilities {
		e := &entry{cap: m, tool: m.Name}
		if old := prevEntry(prev, m.Name); old != nil {
			e.input = old.input
		} else {
			e.input = &inputSchema{raw: m.InputSchema, name: m.Name}
		}
		reg.byName[m.Name] = e
	}
	for _, p := range r.providers {
		if st := r.state[p.Name()]; st == nil || !st.discovered {
			continue
		}
		for _, t := range r.admitTools(reg, p) {
			name := p.Prefix() + "." + t.Name
			schema := t.InputSchema
			if len(bytes.TrimSpace(schema)) == 0 || bytes.Equal(bytes.TrimSpace(schema), []byte("null")) {
				schema = defaultInputSchema
			}
			e := &entry{
				cap: Capability{Name: name, Description: t.Description, InputSchema: schema, Provider: p.Name(),
					Title: t.Title, Annotations: t.Annotations, Tool: t.Raw},
				tool:        t.Name,
				unavailable: unavailableReason(t.Raw),
			}
			if old := prevEntry(prev, name); old != nil && old.cap.Provider == p.Name() && bytes.Equal(old.cap.InputSchema, schema) {
				e.input = old.input
			} else {
				e.input = &inputSchema{raw: schema, name: name}
			}
			reg.byName[name] = e
			reg.perProvider[p.Name()]++
		}
	}
	for name, e := range reg.byName {
		reg.list = append(reg.list, Summary{Name: name, Description: e.cap.Description, Title: e.cap.Title,
			Annotations: e.cap.Annotations, Unavailable: e.unavailable})
	}
	sort.Slice(reg.list, func(i, j int) bool { return reg.list[i].Name < reg.list[j].Name })
	return reg
}

// admitTools returns p's tools that may become capabilities, in order, and
// records the others in reg.skipped with the reason (logged): names
// checkToolName refuses, names that look like another tool's of p, and
// repeated names (the first is kept).
func (r *Runtime) admitTools(reg *registry, p Provider) []Tool {
	skip := func(name, reason string) {
		r.log.Warn().Str("provider", p.Name()).Str("tool", strconv.QuoteToASCII(name)).Str("reason", reason).Msg("tool skipped")
		reg.skipped[p.Name()] = append(reg.skipped[p.Name()], skippedTool(name, reason))
	}
	var named []Tool
	var names []string
	seen := map[string]bool{}
	for _, t := range p.Tools() {
		if err := checkToolName(t.Name); err != nil {
			skip(t.Name, err.Error())
			continue
		}
		if seen[t.Name] {
			skip(t.Name, "another tool of the same server has this name; the first is kept")
			continue
		}
		seen[t.Name] = true
		named = append(named, t)
		names = append(names, t.Name)
	}
	lookalikes := confusableNames(names)
	var out []Tool
	for _, t := range named {
		if others := lookalikes[t.Name]; len(others) > 0 {
			skip(t.Name, confusableReason(others))
			continue
		}
		out = append(out, t)
	}
	return out
}

func prevEntry(prev *registry, name string) *entry {
	if prev == nil {
		return nil
	}
	return prev.byName[name]
}

// List returns every capability's name and description, sorted by name,
// meta-capabilities included.
func (r *Runtime) List() []Summary {
	l := r.reg.Load().list
	out := make([]Summary, len(l))
	copy(out, l)
	return out
}

// Describe returns the named capability, its input schema exactly as the
// provider sent it. Unknown names fail with CAPABILITY_NOT_FOUND.
func (r *Runtime) Describe(name string) (Capability, error) {
	e := r.reg.Load().byName[name]
	if e == nil {
		return Capability{}, wire.Errorf(wire.CodeCapabilityNotFound, "no capability named %q", name)
	}
	return e.cap, nil
}

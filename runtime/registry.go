package runtime

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"

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
	cap    Capability
	tool   string      // the provider's own tool name
	input  *lazySchema // never nil
	output *lazySchema // nil when the tool declares no outputSchema
	// unavailable says why the tool cannot run through this host ("" when
	// it can), and reason is the details reason of the error that refuses
	// its calls: TaskRequired with "task-required", read from the tool
	// object at discovery, or a schema that cannot be used, with
	// InvalidSchema, once it has been compiled.
	unavailable, reason string
}

// setUnavailable records why e cannot run, from the tool object and from
// its schemas' compilation, as far as it has gone.
func (e *entry) setUnavailable() {
	switch {
	case unavailableReason(e.cap.Tool) != "":
		e.unavailable, e.reason = TaskRequired, "task-required"
	case e.input.failed() != nil:
		e.unavailable, e.reason = unusableReason(e.input.kind, e.input.failed()), InvalidSchema
	case e.output.failed() != nil:
		e.unavailable, e.reason = unusableReason(e.output.kind, e.output.failed()), InvalidSchema
	}
}

// defaultInputSchema stands in for a tool that sent no inputSchema.
var defaultInputSchema = json.RawMessage(`{"type":"object"}`)

// buildRegistry must be called with r.mu held. It reuses prev's schemas
// for unchanged schema bytes, so each schema is compiled once, and returns
// the schemas it did not find there, to compile (see lazySchema).
func (r *Runtime) buildRegistry(prev *registry) (*registry, []*lazySchema) {
	var fresh []*lazySchema
	reg := &registry{byName: map[string]*entry{}, perProvider: map[string]int{}, skipped: map[string][]SkippedTool{}}
	for _, m := range metaCapabilities {
		e := &entry{cap: m, tool: m.Name}
		if old := prevEntry(prev, m.Name); old != nil {
			e.input = old.input
		} else {
			e.input = newLazySchema(m.InputSchema, m.Name, "inputSchema", false)
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
				tool: t.Name,
			}
			old := prevEntry(prev, name)
			assert := r.assertFormats[p.Name()]
			if old != nil && old.cap.Provider == p.Name() && old.input.same(schema, assert) {
				e.input = old.input
			} else {
				e.input = newLazySchema(schema, name, "inputSchema", assert)
				fresh = append(fresh, e.input)
			}
			if out := outputSchemaOf(t.Raw); out != nil {
				if old != nil && old.cap.Provider == p.Name() && old.output.same(out, assert) {
					e.output = old.output
				} else {
					e.output = newLazySchema(out, name, "outputSchema", assert)
					fresh = append(fresh, e.output)
				}
			}
			e.setUnavailable()
			reg.byName[name] = e
			reg.perProvider[p.Name()]++
		}
	}
	for name, e := range reg.byName {
		reg.list = append(reg.list, Summary{Name: name, Description: e.cap.Description, Title: e.cap.Title,
			Annotations: e.cap.Annotations, Unavailable: e.unavailable})
	}
	sort.Slice(reg.list, func(i, j int) bool { return reg.list[i].Name < reg.list[j].Name })
	return reg, fresh
}

// admitTools returns p's tools that may become capabilities, in order, and
// records the others in reg.skipped with the reason (logged): names
// CheckToolName refuses, names that look like another tool's of p, and
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
		if err := CheckToolName(t.Name); err != nil {
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
	c := e.cap
	c.Unavailable = e.unavailable
	c.Checks = e.input.checks()
	return c, nil
}

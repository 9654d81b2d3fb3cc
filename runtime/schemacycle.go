package runtime

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// Keywords whose subschemas apply to the same instance: following them does
// not go deeper into the arguments, so a cycle through them (with "$ref")
// never ends. qri-io recurses on such a cycle until the goroutine stack
// overflows, which kills the process; refCycle finds them first.
var (
	inPlaceOne  = []string{"not", "if", "then", "else"}
	inPlaceMany = []string{"allOf", "anyOf", "oneOf"}
	inPlaceMap  = []string{"dependentSchemas"}
	// Keywords whose subschemas apply to a part of the instance.
	descendOne  = []string{"additionalProperties", "items", "additionalItems", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems"}
	descendMany = []string{"items", "prefixItems"}
	descendMap  = []string{"properties", "patternProperties"}
	// Containers of subschemas that apply only when referenced.
	holderMap = []string{"$defs", "definitions"}
)

// refCycle reports a chain of "$ref"s and in-place keywords that leads back
// to where it started, as a description, or "" when there is none. doc is
// the schema as compiled (after localiseRefs). The same document always gets
// the same report: schemas are walked in keyword order and map members in
// name order.
func refCycle(doc any) string {
	g := newSchemaGraph(doc)
	return g.findCycle()
}

// visitState is a schema's place in the depth-first search of findCycle.
type visitState int

const (
	unvisited visitState = iota
	onStack
	done
)

// schemaGraph is a schema document as a graph: each subschema object is a
// node named by its JSON pointer, and an edge leads from a node to each
// subschema that applies to the same instance (its "$ref" target and its
// in-place keywords).
type schemaGraph struct {
	nodes   map[string]map[string]any // pointer → schema object
	order   []string                  // pointers in the order collect met them
	anchors map[string]string         // $anchor → pointer
	state   map[string]visitState
}

func newSchemaGraph(doc any) *schemaGraph {
	g := &schemaGraph{
		nodes:   map[string]map[string]any{},
		anchors: map[string]string{},
		state:   map[string]visitState{},
	}
	g.collect("", doc)
	return g
}

// collect records v at ptr, and every subschema under it, when v is a
// schema object met for the first time.
func (g *schemaGraph) collect(ptr string, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	if _, seen := g.nodes[ptr]; seen {
		return
	}
	g.nodes[ptr] = m
	g.order = append(g.order, ptr)
	if a, ok := m["$anchor"].(string); ok {
		g.anchors[a] = ptr
	}
	for _, k := range slices.Concat(inPlaceOne, descendOne) {
		g.collect(child(ptr, k), m[k])
	}
	for _, k := range slices.Concat(inPlaceMany, descendMany) {
		if arr, ok := m[k].([]any); ok {
			for i, sub := range arr {
				g.collect(child(ptr, k, fmt.Sprint(i)), sub)
			}
		}
	}
	for _, k := range slices.Concat(inPlaceMap, descendMap, holderMap) {
		if mm, ok := m[k].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(mm)) {
				g.collect(child(ptr, k, name), mm[name])
			}
		}
	}
}

// edges lists the nodes that apply to the same instance as ptr, in keyword
// order: its "$ref" target first, then its in-place subschemas.
func (g *schemaGraph) edges(ptr string) []string {
	m := g.nodes[ptr]
	var out []string
	if ref, ok := m["$ref"].(string); ok {
		if target, ok := resolveFragment(ref, g.anchors); ok {
			out = append(out, target)
		}
	}
	for _, k := range inPlaceOne {
		if _, ok := m[k].(map[string]any); ok {
			out = append(out, child(ptr, k))
		}
	}
	for _, k := range inPlaceMany {
		if arr, ok := m[k].([]any); ok {
			for i := range arr {
				out = append(out, child(ptr, k, fmt.Sprint(i)))
			}
		}
	}
	for _, k := range inPlaceMap {
		if mm, ok := m[k].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(mm)) {
				out = append(out, child(ptr, k, name))
			}
		}
	}
	return out
}

// findCycle runs a depth-first search from every node in collect order and
// describes the first edge back onto the search path, or returns "".
func (g *schemaGraph) findCycle() string {
	for _, ptr := range g.order {
		if g.state[ptr] == unvisited {
			if c := g.visit(ptr); c != "" {
				return c
			}
		}
	}
	return ""
}

func (g *schemaGraph) visit(ptr string) string {
	g.state[ptr] = onStack
	for _, next := range g.edges(ptr) {
		if _, ok := g.nodes[next]; !ok {
			continue // a reference to nothing, or to a value that is not a schema object
		}
		switch g.state[next] {
		case onStack:
			return fmt.Sprintf("%q leads back to %q without consuming input", "#"+ptr, "#"+next)
		case unvisited:
			if c := g.visit(next); c != "" {
				return c
			}
		}
	}
	g.state[ptr] = done
	return ""
}

// child is the pointer of a member of ptr, each token escaped.
func child(ptr string, tokens ...string) string {
	var b strings.Builder
	b.WriteString(ptr)
	for _, t := range tokens {
		b.WriteString("/" + escapePointer(t))
	}
	return b.String()
}

// resolveFragment turns a "#..." reference into a JSON pointer of the
// document: "#" and "#/a/b" are pointers (URI-escaped), "#name" an anchor.
func resolveFragment(ref string, anchors map[string]string) (string, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return "", false
	}
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped
	}
	if frag == "" {
		return "", true
	}
	if !strings.HasPrefix(frag, "/") {
		p, ok := anchors[frag]
		return p, ok
	}
	// Normalise each token's escaping to the one collect uses.
	toks := strings.Split(frag[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return child("", toks...), true
}

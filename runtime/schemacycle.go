package runtime

import (
	"fmt"
	"net/url"
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
// the schema as compiled (after neutralise).
func refCycle(doc any) string {
	nodes := map[string]map[string]any{} // pointer → schema object
	anchors := map[string]string{}       // $anchor → pointer
	var collect func(ptr string, v any)
	collect = func(ptr string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if _, seen := nodes[ptr]; seen {
			return
		}
		nodes[ptr] = m
		if a, ok := m["$anchor"].(string); ok {
			anchors[a] = ptr
		}
		for _, k := range append(append([]string{}, inPlaceOne...), descendOne...) {
			collect(ptr+"/"+escapePointer(k), m[k])
		}
		for _, k := range append(append([]string{}, inPlaceMany...), descendMany...) {
			if arr, ok := m[k].([]any); ok {
				for i, sub := range arr {
					collect(fmt.Sprintf("%s/%s/%d", ptr, escapePointer(k), i), sub)
				}
			}
		}
		for _, k := range append(append(append([]string{}, inPlaceMap...), descendMap...), holderMap...) {
			if mm, ok := m[k].(map[string]any); ok {
				for name, sub := range mm {
					collect(ptr+"/"+escapePointer(k)+"/"+escapePointer(name), sub)
				}
			}
		}
	}
	collect("", doc)

	// Edges that stay on the same instance.
	edges := func(ptr string) []string {
		m := nodes[ptr]
		var out []string
		if ref, ok := m["$ref"].(string); ok {
			if target, ok := resolveFragment(ref, anchors); ok {
				if _, exists := nodes[target]; exists {
					out = append(out, target)
				}
			}
		}
		for _, k := range inPlaceOne {
			if _, ok := m[k].(map[string]any); ok {
				out = append(out, ptr+"/"+escapePointer(k))
			}
		}
		for _, k := range inPlaceMany {
			if arr, ok := m[k].([]any); ok {
				for i := range arr {
					out = append(out, fmt.Sprintf("%s/%s/%d", ptr, escapePointer(k), i))
				}
			}
		}
		for _, k := range inPlaceMap {
			if mm, ok := m[k].(map[string]any); ok {
				for name := range mm {
					out = append(out, ptr+"/"+escapePointer(k)+"/"+escapePointer(name))
				}
			}
		}
		return out
	}

	const (
		unvisited = iota
		onStack
		done
	)
	color := map[string]int{}
	var cycle string
	var visit func(ptr string) bool
	visit = func(ptr string) bool {
		color[ptr] = onStack
		for _, next := range edges(ptr) {
			if _, ok := nodes[next]; !ok {
				continue
			}
			switch color[next] {
			case onStack:
				cycle = fmt.Sprintf("%q leads back to %q without consuming input", "#"+ptr, "#"+next)
				return true
			case unvisited:
				if visit(next) {
					return true
				}
			}
		}
		color[ptr] = done
		return false
	}
	for ptr := range nodes {
		if color[ptr] == unvisited && visit(ptr) {
			return cycle
		}
	}
	return ""
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
	var b strings.Builder
	for _, t := range toks {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		b.WriteString("/" + escapePointer(t))
	}
	return b.String(), true
}

package schema

import "fmt"

// MaxInPlaceDepth bounds how many schemas a schema applies inside each
// other to one value (allOf in allOf, a "$ref" to a schema with a "$ref",
// ...). Real schemas nest a handful; past the bound the schema cannot be
// used, so that every value may be nested MaxEvalDepth/MaxInPlaceDepth
// levels at least.
const MaxInPlaceDepth = 200

// inPlaceTooDeep finds a chain of in-place subschemas longer than
// MaxInPlaceDepth (there is no cycle: findCycle ran), and says where it
// starts, or is "".
func inPlaceTooDeep(root *node) string {
	depth := map[*node]int{}
	var walk func(n *node) int
	walk = func(n *node) int {
		if d, ok := depth[n]; ok {
			return d
		}
		d := 1
		for _, next := range inPlace(n) {
			d = max(d, 1+walk(next))
		}
		depth[n] = d
		return d
	}
	seen := map[*node]bool{}
	var all func(n *node) string
	all = func(n *node) string {
		if n == nil || seen[n] {
			return ""
		}
		seen[n] = true
		if d := walk(n); d > MaxInPlaceDepth {
			return fmt.Sprintf("the schema at %s applies %d schemas inside each other to one value (allOf, anyOf, $ref, ...), more than the %d allowed", ptrOrRoot(n.ptr), d, MaxInPlaceDepth)
		}
		for _, next := range children(n) {
			if c := all(next); c != "" {
				return c
			}
		}
		return ""
	}
	return all(root)
}

// findCycle finds a loop of in-place references that never descends into
// the instance ({"$ref": "#"}, or two $defs that allOf each other): it
// would recurse without end on any value. It names the loop, or is "".
func findCycle(root *node) string {
	const (
		unseen = iota
		onPath
		done
	)
	mark := map[*node]int{}
	var visit func(n *node) string
	visit = func(n *node) string {
		switch mark[n] {
		case onPath:
			return fmt.Sprintf("the schema at %s refers to itself without descending into the value, so it cannot be evaluated", ptrOrRoot(n.ptr))
		case done:
			return ""
		}
		mark[n] = onPath
		for _, next := range inPlace(n) {
			if c := visit(next); c != "" {
				return c
			}
		}
		mark[n] = done
		return ""
	}
	seen := map[*node]bool{}
	var all func(n *node) string
	all = func(n *node) string {
		if n == nil || seen[n] {
			return ""
		}
		seen[n] = true
		if c := visit(n); c != "" {
			return c
		}
		for _, next := range children(n) {
			if c := all(next); c != "" {
				return c
			}
		}
		return ""
	}
	return all(root)
}

// inPlace lists the subschemas applied to the same instance as n.
func inPlace(n *node) []*node {
	out := append([]*node{}, n.allOf...)
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	for _, s := range []*node{n.ref, n.not, n.ifNode, n.then, n.elseN} {
		if s != nil {
			out = append(out, s)
		}
	}
	if n.dynamicRef != nil && n.dynamicRef.static != nil {
		out = append(out, n.dynamicRef.static)
	}
	for _, s := range n.dependentSchemas {
		out = append(out, s)
	}
	return out
}

// children lists every subschema of n, in place or not.
func children(n *node) []*node {
	out := inPlace(n)
	out = append(out, n.prefixItems...)
	for _, s := range []*node{n.items, n.contains, n.unevaluatedItems, n.additionalProperties, n.propertyNames, n.unevaluatedProperties} {
		if s != nil {
			out = append(out, s)
		}
	}
	for _, s := range n.properties {
		out = append(out, s)
	}
	for _, pp := range n.patternProperties {
		out = append(out, pp.sch)
	}
	if n.dynamicRef != nil && n.res != nil {
		for _, s := range n.res.dynamicNodes {
			out = append(out, s)
		}
	}
	return out
}

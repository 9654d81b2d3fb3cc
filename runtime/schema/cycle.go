package schema

import "fmt"

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

package schema

import "fmt"

// refs reads "$ref", "$dynamicRef" and 2019-09's "$recursiveRef". A
// reference into a document the compiler does not have (the host never
// fetches one) leaves that part unchecked, with a warning.
func (b *builder) refs() error {
	base := b.n.res.uri
	if ref, ok := b.m["$ref"]; ok {
		s, ok := ref.(string)
		if !ok {
			return fmt.Errorf("%s: must be a string", b.at("$ref"))
		}
		n, _, _, err := b.c.resolve(base, s, b.at("$ref"), b.draft)
		if err != nil {
			return err
		}
		b.n.ref = n
	}
	if b.draft == draft2020 {
		if ref, ok := b.m["$dynamicRef"].(string); ok {
			n, res, anchor, err := b.c.resolve(base, ref, b.at("$dynamicRef"), b.draft)
			if err != nil || n == nil {
				return err
			}
			d := &dynamicRef{static: n, anchor: anchor}
			if _, ok := res.dynamicAnchors[anchor]; ok && anchor != "" {
				d.dynamic = true
				if err := b.c.dynamicNodes(); err != nil {
					return err
				}
			}
			b.n.dynamicRef = d
		}
	}
	if b.draft == draft2019 {
		if ref, ok := b.m["$recursiveRef"].(string); ok {
			n, res, _, err := b.c.resolve(base, ref, b.at("$recursiveRef"), b.draft)
			if err != nil || n == nil {
				return err
			}
			d := &dynamicRef{static: n, recursive: true, dynamic: res.recursiveAnchor}
			if d.dynamic {
				if err := b.c.dynamicNodes(); err != nil {
					return err
				}
			}
			b.n.dynamicRef = d
		}
	}
	return nil
}

// dynamicNodes compiles the targets a dynamic reference may land on: every
// "$dynamicAnchor" and recursive root of the resources known so far.
// Compiling one may load more documents, so it runs to a fixed point.
func (c *compiler) dynamicNodes() error {
	for changed := true; changed; {
		changed = false
		for _, r := range c.resources {
			if r.recursiveAnchor && r.rootNode == nil {
				n, err := c.node(r.doc, r.ptr)
				if err != nil {
					return err
				}
				r.rootNode, changed = n, true
			}
			for name, ptr := range r.dynamicAnchors {
				if _, done := r.dynamicNodes[name]; done {
					continue
				}
				if r.dynamicNodes == nil {
					r.dynamicNodes = map[string]*node{}
				}
				n, err := c.node(r.doc, ptr)
				if err != nil {
					return err
				}
				r.dynamicNodes[name], changed = n, true
				break
			}
			if changed {
				break // c.resources may have grown
			}
		}
	}
	return nil
}

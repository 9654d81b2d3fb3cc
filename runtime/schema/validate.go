package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// maxRefDepth bounds the "$ref"s one validation follows inside each
// other. Recursion that follows the instance's nesting stays far below it
// (decoding bounds nesting); a cycle the compile-time check missed would
// otherwise grow the stack until the process dies.
const maxRefDepth = 2000

// state is one validation: the violations found so far, the dynamic scope
// and the bounds.
type state struct {
	collect  bool // record violations (false inside anyOf, oneOf, not, if, contains)
	errs     []Violation
	scope    []*resource
	refDepth int
	fatal    error
}

// evaluated is what in-place subschemas evaluated of one instance, for
// unevaluatedProperties and unevaluatedItems: only kept when some schema
// asks (node.hasUneval).
type evaluated struct {
	props    map[string]struct{}
	allProps bool
	items    int // items [0, items) are evaluated
	allItems bool
	itemIdx  map[int]struct{} // items "contains" matched
}

func (e *evaluated) merge(o *evaluated) {
	if o.allProps {
		e.allProps = true
	}
	for k := range o.props {
		e.addProp(k)
	}
	e.items = max(e.items, o.items)
	if o.allItems {
		e.allItems = true
	}
	for i := range o.itemIdx {
		if e.itemIdx == nil {
			e.itemIdx = map[int]struct{}{}
		}
		e.itemIdx[i] = struct{}{}
	}
}

func (e *evaluated) addProp(k string) {
	if e.props == nil {
		e.props = map[string]struct{}{}
	}
	e.props[k] = struct{}{}
}

func (e *evaluated) hasProp(k string) bool {
	if e.allProps {
		return true
	}
	_, ok := e.props[k]
	return ok
}

func (e *evaluated) hasItem(i int) bool {
	if e.allItems || i < e.items {
		return true
	}
	_, ok := e.itemIdx[i]
	return ok
}

// ipath is an instance location, built only when a violation needs it.
type ipath struct {
	parent *ipath
	key    string
	idx    int
	isIdx  bool
}

func (p *ipath) String() string {
	if p == nil {
		return ""
	}
	var segs []string
	for q := p; q != nil; q = q.parent {
		if q.isIdx {
			segs = append(segs, strconv.Itoa(q.idx))
		} else {
			segs = append(segs, escapeToken(q.key))
		}
	}
	var b strings.Builder
	for i := len(segs) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(segs[i])
	}
	return b.String()
}

// fail records a violation (when collecting) and returns false.
func (s *state) fail(p *ipath, keyword, msg string) bool {
	if s.collect {
		s.errs = append(s.errs, Violation{Path: p.String(), Keyword: keyword, Message: msg})
	}
	return false
}

// quiet runs f without recording violations, for a subschema whose
// failure is not itself the error (an anyOf branch).
func (s *state) quiet(f func() bool) bool {
	saved := s.collect
	s.collect = false
	ok := f()
	s.collect = saved
	return ok
}

// validate checks v against n. ev, when not nil, receives what n
// evaluated of v (only if v is valid against n).
func (s *state) validate(n *node, v any, p *ipath, ev *evaluated) bool {
	if n.isBool {
		if n.accept {
			return true
		}
		return s.fail(p, "false", "no value is allowed here (the schema is false)")
	}
	if s.fatal != nil {
		return false
	}
	pushed := len(s.scope) == 0 || s.scope[len(s.scope)-1] != n.res
	if pushed {
		s.scope = append(s.scope, n.res)
	}
	var local *evaluated
	if ev != nil || n.hasUneval {
		local = &evaluated{}
	}
	ok := s.keywords(n, v, p, local)
	if pushed {
		s.scope = s.scope[:len(s.scope)-1]
	}
	if ok && ev != nil {
		ev.merge(local)
	}
	return ok
}

// keywords runs every keyword of n, stopping at the first failure when
// not collecting violations.
func (s *state) keywords(n *node, v any, p *ipath, ev *evaluated) bool {
	ok := true
	step := func(r bool) bool {
		if !r {
			ok = false
		}
		return r || s.collect
	}
	if n.ref != nil || n.dynamicRef != nil {
		if !step(s.refs(n, v, p, ev)) {
			return false
		}
	}
	if !step(s.anyType(n, v, p)) {
		return false
	}
	switch x := v.(type) {
	case string:
		if !step(s.strings(n, x, p)) {
			return false
		}
	case []any:
		if !step(s.arrays(n, x, p, ev)) {
			return false
		}
	case map[string]any:
		if !step(s.objects(n, x, p, ev)) {
			return false
		}
	default:
		if !step(s.numbers(n, v, p)) {
			return false
		}
	}
	if !step(s.applicators(n, v, p, ev)) {
		return false
	}
	if n.hasUneval && ok {
		switch x := v.(type) {
		case []any:
			ok = s.unevaluatedItems(n, x, p, ev) && ok
		case map[string]any:
			ok = s.unevaluatedProperties(n, x, p, ev) && ok
		}
	}
	return ok
}

// refs follows "$ref" and "$dynamicRef".
func (s *state) refs(n *node, v any, p *ipath, ev *evaluated) bool {
	s.refDepth++
	defer func() { s.refDepth-- }()
	if s.refDepth > maxRefDepth {
		if s.fatal == nil {
			s.fatal = fmt.Errorf("schema references nest deeper than %d", maxRefDepth)
		}
		return false
	}
	ok := true
	if n.ref != nil {
		ok = s.validate(n.ref, v, p, ev)
		if !ok && !s.collect {
			return false
		}
	}
	if d := n.dynamicRef; d != nil {
		target := d.static
		if d.dynamic {
			target = s.dynamicTarget(d)
		}
		if target != nil {
			ok = s.validate(target, v, p, ev) && ok
		}
	}
	return ok
}

// dynamicTarget is the schema a dynamic reference lands on: the outermost
// resource of the dynamic scope that defines its anchor.
func (s *state) dynamicTarget(d *dynamicRef) *node {
	for _, r := range s.scope {
		if d.recursive {
			if r.recursiveAnchor && r.rootNode != nil {
				return r.rootNode
			}
			continue
		}
		if t, ok := r.dynamicNodes[d.anchor]; ok {
			return t
		}
	}
	return d.static
}

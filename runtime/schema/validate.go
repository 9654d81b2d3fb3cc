package schema

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gnosis/gnosis/runtime/schema/regex"
)

// MaxEvalDepth bounds how deep schemas apply inside each other while one
// value is checked: the value's own nesting, times the references a
// schema follows in place at each level (which compile.go bounds). Past
// it the value is refused, with a violation at the place that is too
// deep: the value may be valid, but the host does not check it further.
const MaxEvalDepth = 10_000

// state is one validation: the violations found so far, the dynamic scope
// and the bounds.
type state struct {
	collect bool // record violations (false inside anyOf, oneOf, not, if, contains)
	errs    []Violation
	more    int // violations past MaxViolations, not recorded
	scope   []*resource
	depth   int
	kpath   []string // the keyword location being applied, token by token
	paths   pathSlab
	budget  *Budget
	steps   int64 // the budget's steps at the start, for CostError
	fatal   error
}

// spend takes n steps of the budget; false (with s.fatal set) when it is
// spent or stopped.
func (s *state) spend(n int64, p *ipath, keyword string) bool {
	if s.fatal != nil {
		return false
	}
	if err := s.budget.Spend(n); err != nil {
		s.stop(err, p, keyword)
		return false
	}
	return true
}

// stop ends the validation on a budget error of the budget or of a
// pattern match.
func (s *state) stop(err error, p *ipath, keyword string) {
	if s.fatal != nil {
		return
	}
	if errors.Is(err, regex.ErrStopped) {
		s.fatal = ErrStopped
		return
	}
	s.fatal = &CostError{Budget: s.steps, Path: p.String(), Keyword: keyword, KeywordLocation: s.location(""), Memory: errors.Is(err, regex.ErrMemory)}
}

// push and pop move the keyword location.
func (s *state) push(toks ...string) { s.kpath = append(s.kpath, toks...) }
func (s *state) pop(n int)           { s.kpath = s.kpath[:len(s.kpath)-n] }

// sub validates v against the subschema n of the keyword at toks.
func (s *state) sub(n *node, v any, p *ipath, ev *evaluated, toks ...string) bool {
	s.push(toks...)
	ok := s.validate(n, v, p, ev)
	s.pop(len(toks))
	return ok
}

// subItem validates item i of the array at p against n, and subMember
// member name of the object at p: the child's instance location comes
// from the state's slab of path nodes, freed when it returns, so that a
// million items cost no allocation each (a node's address never outlives
// the call: a violation keeps its path as a string).
func (s *state) subItem(n *node, item any, p *ipath, i int, ev *evaluated, toks ...string) bool {
	q := s.child(ipath{parent: p, idx: i, isIdx: true})
	ok := s.sub(n, item, q, ev, toks...)
	s.paths.top--
	return ok
}

func (s *state) subMember(n *node, v any, p *ipath, name string, ev *evaluated, toks ...string) bool {
	q := s.child(ipath{parent: p, key: name})
	ok := s.sub(n, v, q, ev, toks...)
	s.paths.top--
	return ok
}

// pathChunk is the size of the slab's chunks of path nodes.
const pathChunk = 256

// pathSlab holds the path nodes of the values being validated, a stack:
// chunks never move, so a node's address stays valid while it is in use.
type pathSlab struct {
	chunks [][]ipath
	top    int
}

func (s *state) child(v ipath) *ipath {
	c, o := s.paths.top/pathChunk, s.paths.top%pathChunk
	if c == len(s.paths.chunks) {
		s.paths.chunks = append(s.paths.chunks, make([]ipath, pathChunk))
	}
	n := &s.paths.chunks[c][o]
	*n = v
	s.paths.top++
	return n
}

// location is the keyword location of keyword under the current one.
func (s *state) location(keyword string) string {
	var b strings.Builder
	for _, t := range s.kpath {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	if keyword != "" {
		b.WriteByte('/')
		b.WriteString(escapeToken(keyword))
	}
	return b.String()
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
	// Written back to front into one buffer, so that no part of the path
	// is kept anywhere: the path's nodes live on the validation's stack.
	var num [20]byte
	n := 0
	for q := p; q != nil; q = q.parent {
		if q.isIdx {
			n += 1 + len(strconv.AppendInt(num[:0], int64(q.idx), 10))
		} else {
			n += 1 + len(q.key) + strings.Count(q.key, "~") + strings.Count(q.key, "/")
		}
	}
	b := make([]byte, n)
	i := n
	for q := p; q != nil; q = q.parent {
		if q.isIdx {
			d := strconv.AppendInt(num[:0], int64(q.idx), 10)
			i -= len(d)
			copy(b[i:], d)
		} else {
			for k := len(q.key) - 1; k >= 0; k-- {
				switch c := q.key[k]; c {
				case '~':
					i -= 2
					b[i], b[i+1] = '~', '0'
				case '/':
					i -= 2
					b[i], b[i+1] = '~', '1'
				default:
					i--
					b[i] = c
				}
			}
		}
		i--
		b[i] = '/'
	}
	return string(b)
}

// MaxViolations bounds the violations one validation lists: a value of
// millions of items, each wrong, would otherwise cost a violation each in
// memory and in the reply. Past it they are counted, and the list ends
// with one that says how many more there are.
const MaxViolations = 100

// fail records a violation (when collecting) and returns false.
func (s *state) fail(p *ipath, keyword, msg string) bool {
	if s.collect {
		if len(s.errs) >= MaxViolations {
			s.more++
			return false
		}
		s.errs = append(s.errs, Violation{Path: p.String(), Keyword: keyword, Message: msg, KeywordLocation: s.location(keyword)})
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
	if !s.spend(1, p, lastKeyword(s.kpath)) {
		return false
	}
	if n.isBool {
		if n.accept {
			return true
		}
		if s.collect {
			if len(s.errs) >= MaxViolations {
				s.more++
				return false
			}
			s.errs = append(s.errs, Violation{Path: p.String(), Keyword: "false", Message: "no value is allowed here (the schema is false)", KeywordLocation: s.location("")})
		}
		return false
	}
	if s.depth >= MaxEvalDepth {
		return s.fail(p, lastKeyword(s.kpath), fmt.Sprintf("the value is nested too deep here to be checked: the host applies schemas to at most %d levels (the value's nesting times the references followed at each level)", MaxEvalDepth))
	}
	s.depth++
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
	s.depth--
	if ok && ev != nil {
		ev.merge(local)
	}
	return ok && s.fatal == nil
}

// lastKeyword is the keyword of a keyword location's tokens that is
// applied last: the tokens that name a member of a keyword (a property
// name, a branch's index) are not keywords.
func lastKeyword(toks []string) string {
	kw := ""
	for i := 0; i < len(toks); i++ {
		kw = toks[i]
		switch kw {
		case "properties", "patternProperties", "dependentSchemas", "dependencies", "allOf", "anyOf", "oneOf", "prefixItems":
			i++ // its member's name or index
		case "items":
			if i+1 < len(toks) && isIndex(toks[i+1]) {
				i++ // draft-07's array form
			}
		}
	}
	return kw
}

func isIndex(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if !isDigit(t[i]) {
			return false
		}
	}
	return true
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
	ok := true
	if n.ref != nil {
		ok = s.sub(n.ref, v, p, ev, "$ref")
		if !ok && !s.collect {
			return false
		}
	}
	if d := n.dynamicRef; d != nil {
		target := d.static
		if d.dynamic {
			target = s.dynamicTarget(d)
		}
		kw := "$dynamicRef"
		if d.recursive {
			kw = "$recursiveRef"
		}
		if target != nil {
			ok = s.sub(target, v, p, ev, kw) && ok
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

package regex

import (
	"sort"
	"sync"
	"unicode"

	"github.com/dlclark/regexp2/v2/syntax"
)

// rng is an inclusive range of code points.
type rng struct{ lo, hi rune }

// charSet is the set of code points one atom matches: ranges, Unicode
// properties (\p{…}, \P{…}) and a complement, as ECMA-262's
// CharacterClass and CharacterClassEscape define them.
type charSet struct {
	ranges []rng // sorted, disjoint, not adjacent
	props  []prop
	negate bool
	ascii  [2]uint64 // membership of U+0000–U+007F, all of the above applied
}

// prop is one \p{…} (or, negated, \P{…}) in a set.
type prop struct {
	set    *syntax.CharSet
	negate bool
}

const maxRune = unicode.MaxRune

// has reports whether r is in the set.
func (c *charSet) has(r rune) bool {
	if r < 128 {
		return c.ascii[r>>6]&(1<<(uint(r)&63)) != 0
	}
	return c.slowHas(r)
}

func (c *charSet) slowHas(r rune) bool {
	in := false
	i := sort.Search(len(c.ranges), func(i int) bool { return c.ranges[i].hi >= r })
	if i < len(c.ranges) && c.ranges[i].lo <= r {
		in = true
	}
	for _, p := range c.props {
		if in {
			break
		}
		in = p.set.CharIn(r) != p.negate
	}
	return in != c.negate
}

// builder accumulates a set.
type setBuilder struct {
	ranges []rng
	props  []prop
}

func (b *setBuilder) addRange(lo, hi rune) { b.ranges = append(b.ranges, rng{lo, hi}) }
func (b *setBuilder) addRune(r rune)       { b.addRange(r, r) }

// addSet adds every code point of a built set (a class escape inside a
// class).
func (b *setBuilder) addSet(c *charSet) {
	if !c.negate {
		b.ranges = append(b.ranges, c.ranges...)
		b.props = append(b.props, c.props...)
		return
	}
	// The complement of (ranges ∪ props) is (complement of ranges) ∩
	// (complement of each prop); a negated escape only ever holds one of
	// the two (\D, \S, \W are ranges; \P{…} is a prop), so the complement
	// stays a union.
	switch {
	case len(c.props) == 0:
		b.ranges = append(b.ranges, complement(c.ranges)...)
	case len(c.ranges) == 0 && len(c.props) == 1:
		p := c.props[0]
		b.props = append(b.props, prop{p.set, !p.negate})
	default:
		panic("regex: complement of a mixed set")
	}
}

// build returns the set, complemented when negate.
func (b *setBuilder) build(negate bool) *charSet {
	c := &charSet{ranges: normalize(b.ranges), props: b.props, negate: negate}
	for r := rune(0); r < 128; r++ {
		if c.slowHas(r) {
			c.ascii[r>>6] |= 1 << (uint(r) & 63)
		}
	}
	return c
}

// normalize sorts ranges and merges overlapping and adjacent ones.
func normalize(rs []rng) []rng {
	if len(rs) == 0 {
		return nil
	}
	rs = append([]rng(nil), rs...)
	sort.Slice(rs, func(i, j int) bool { return rs[i].lo < rs[j].lo })
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r.lo <= last.hi+1 {
			last.hi = max(last.hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// complement is every code point not in rs (normalized).
func complement(rs []rng) []rng {
	rs = normalize(rs)
	var out []rng
	next := rune(0)
	for _, r := range rs {
		if r.lo > next {
			out = append(out, rng{next, r.lo - 1})
		}
		next = r.hi + 1
	}
	if next <= maxRune {
		out = append(out, rng{next, maxRune})
	}
	return out
}

func single(r rune) *charSet {
	var b setBuilder
	b.addRune(r)
	return b.build(false)
}

// The sets of the class escapes and of ".", as ECMA-262 defines them
// with the u flag and no i flag: \d and \w are ASCII; \s is WhiteSpace
// (tab, vertical tab, form feed, U+FEFF and the Space_Separator category)
// and LineTerminator (\n, \r, U+2028, U+2029); "." is every code point
// but a LineTerminator.
var (
	digitRanges = []rng{{'0', '9'}}
	wordRanges  = []rng{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}
	spaceRanges = func() []rng {
		rs := []rng{{'\t', '\r'}, {0xfeff, 0xfeff}, {0x2028, 0x2029}}
		for _, r := range unicode.Zs.R16 {
			for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
				rs = append(rs, rng{c, c})
			}
		}
		for _, r := range unicode.Zs.R32 {
			for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
				rs = append(rs, rng{c, c})
			}
		}
		return normalize(rs)
	}()
	lineTerminators = []rng{{'\n', '\n'}, {'\r', '\r'}, {0x2028, 0x2029}}
)

// escapeSet is the set of \d, \D, \s, \S, \w or \W.
func escapeSet(c byte) *charSet {
	var rs []rng
	switch c | 0x20 {
	case 'd':
		rs = digitRanges
	case 's':
		rs = spaceRanges
	case 'w':
		rs = wordRanges
	}
	b := setBuilder{ranges: rs}
	return b.build(c < 'a')
}

func dotSet() *charSet {
	b := setBuilder{ranges: lineTerminators}
	return b.build(true)
}

// isWordByte reports whether the byte at a position is an ECMA-262 word
// character (ASCII only; a byte of a multi-byte code point never is).
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// properties caches the Unicode properties by name (only names that are
// properties: a finite set, so the cache cannot grow without bound).
var properties sync.Map // string -> *syntax.CharSet

// property returns the set of \p{name}, or false when name is not a
// property ECMA-262 knows (exact names and aliases only: no loose
// matching). regexp2 carries the tables (the Unicode version of the Go
// toolchain for categories and scripts, its own for the binary
// properties and Script_Extensions); its parser resolves the name.
func property(name string) (*syntax.CharSet, bool) {
	if v, ok := properties.Load(name); ok {
		return v.(*syntax.CharSet), true
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(isWordByte(c) || c == '=') {
			return nil, false
		}
	}
	var set *syntax.CharSet
	if t, err := syntax.Parse(`\p{`+name+`}`, syntax.ParseOptions{RegexOptions: syntax.ECMAScript | syntax.Unicode}); err == nil {
		set = findSet(t.Root)
	}
	if set == nil {
		return nil, false
	}
	properties.Store(name, set)
	return set, true
}

func findSet(n *syntax.RegexNode) *syntax.CharSet {
	if n == nil {
		return nil
	}
	if n.Set != nil {
		return n.Set
	}
	for _, c := range n.Children {
		if s := findSet(c); s != nil {
			return s
		}
	}
	return nil
}

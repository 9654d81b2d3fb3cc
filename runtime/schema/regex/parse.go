package regex

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// kind is the kind of a node of a parsed pattern.
type kind uint8

const (
	kEmpty   kind = iota
	kSet          // one code point of set
	kConcat       // subs in order
	kAlt          // one of subs, the first that leads to a match preferred
	kRepeat       // subs[0], min to max times (max -1: unbounded)
	kGroup        // capture group index around subs[0]
	kAssert       // ^, $, \b or \B
	kLook         // lookahead or lookbehind around subs[0]
	kBackref      // the text group index captured
)

// assertion is a zero-width test at a position.
type assertion uint8

const (
	aBegin assertion = iota
	aEnd
	aWord
	aNotWord
)

// node is one part of a parsed pattern.
type node struct {
	kind   kind
	set    *charSet
	subs   []*node
	min    int
	max    int // -1: unbounded
	greedy bool
	index  int // kGroup, kBackref: the group's number (from 1)
	assert assertion
	behind bool // kLook: lookbehind
	negate bool // kLook: negative
	// capLo and capHi bound the groups inside a kRepeat ([capLo, capHi)),
	// which ECMA-262 clears at the start of every iteration.
	capLo, capHi int
	name         string // kBackref by name, before resolution
	at           int    // kBackref: where it is, in code points, for errors
}

// SyntaxError is a text that is not an ECMA-262 pattern with the u flag.
type SyntaxError struct {
	// At is the offset of the offending character, in code points.
	At  int
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s (at character %d)", e.Msg, e.At+1)
}

// maxNesting bounds the groups and classes a pattern opens inside each
// other (an implementation limit: parsing and matching recurse on it).
const maxNesting = 500

// maxCount bounds a quantifier's numbers: {n} past it cannot be told from
// {maxCount} by any string the host holds (every value is shorter).
const maxCount = 1 << 30

// parser reads one pattern.
type parser struct {
	src    string
	pos    int // byte offset
	groups int // capture groups opened so far
	names  map[string]int
	refs   []*node // backreferences, resolved at the end
	depth  int
}

// parse parses src as Pattern[+UnicodeMode, +N] and returns its tree and
// the number of capture groups.
func parse(src string) (*node, int, error) {
	if !utf8.ValidString(src) {
		return nil, 0, &SyntaxError{0, "the pattern is not valid UTF-8"}
	}
	p := &parser{src: src, names: map[string]int{}}
	n, err := p.disjunction()
	if err != nil {
		return nil, 0, err
	}
	if p.pos < len(p.src) {
		// Only an unbalanced ")" stops a disjunction early.
		return nil, 0, p.errorf("unmatched \")\"")
	}
	for _, r := range p.refs {
		if r.name != "" {
			i, ok := p.names[r.name]
			if !ok {
				return nil, 0, &SyntaxError{r.at, fmt.Sprintf("\\k<%s> names no group", r.name)}
			}
			r.index = i
			continue
		}
		if r.index > p.groups {
			return nil, 0, &SyntaxError{r.at, fmt.Sprintf("\\%d refers to group %d, but the pattern has %d", r.index, r.index, p.groups)}
		}
	}
	return n, p.groups, nil
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{utf8.RuneCountInString(p.src[:min(p.pos, len(p.src))]), fmt.Sprintf(format, args...)}
}

func (p *parser) more() bool { return p.pos < len(p.src) }
func (p *parser) peek() byte { return p.src[p.pos] }
func (p *parser) at(s string) bool {
	return len(p.src)-p.pos >= len(s) && p.src[p.pos:p.pos+len(s)] == s
}

// next reads one code point.
func (p *parser) next() rune {
	r, n := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += n
	return r
}

func (p *parser) disjunction() (*node, error) {
	var alts []*node
	for {
		a, err := p.alternative()
		if err != nil {
			return nil, err
		}
		alts = append(alts, a)
		if !p.more() || p.peek() != '|' {
			break
		}
		p.pos++
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return mergeSets(&node{kind: kAlt, subs: alts}), nil
}

func (p *parser) alternative() (*node, error) {
	var terms []*node
	for p.more() && p.peek() != '|' && p.peek() != ')' {
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	switch len(terms) {
	case 0:
		return &node{kind: kEmpty}, nil
	case 1:
		return terms[0], nil
	}
	return &node{kind: kConcat, subs: terms}, nil
}

// term reads an assertion or an atom with its quantifier.
func (p *parser) term() (*node, error) {
	start := p.pos
	switch {
	case p.peek() == '^':
		p.pos++
		return p.noQuantifier(&node{kind: kAssert, assert: aBegin})
	case p.peek() == '$':
		p.pos++
		return p.noQuantifier(&node{kind: kAssert, assert: aEnd})
	case p.at(`\b`):
		p.pos += 2
		return p.noQuantifier(&node{kind: kAssert, assert: aWord})
	case p.at(`\B`):
		p.pos += 2
		return p.noQuantifier(&node{kind: kAssert, assert: aNotWord})
	case p.at("(?="), p.at("(?!"), p.at("(?<="), p.at("(?<!"):
		behind := p.at("(?<")
		p.pos += 2
		if behind {
			p.pos++
		}
		negate := p.peek() == '!'
		p.pos++
		sub, err := p.group()
		if err != nil {
			return nil, err
		}
		return p.noQuantifier(&node{kind: kLook, subs: []*node{sub}, behind: behind, negate: negate})
	}
	capBefore := p.groups
	a, err := p.atom()
	if err != nil {
		return nil, err
	}
	if !p.more() {
		return a, nil
	}
	r := &node{kind: kRepeat, subs: []*node{a}, greedy: true, capLo: capBefore + 1, capHi: p.groups + 1}
	switch p.peek() {
	case '*':
		r.min, r.max = 0, -1
		p.pos++
	case '+':
		r.min, r.max = 1, -1
		p.pos++
	case '?':
		r.min, r.max = 0, 1
		p.pos++
	case '{':
		ok, err := p.braces(r)
		if err != nil {
			return nil, err
		}
		if !ok {
			p.pos = start
			return nil, p.errorf("a \"{\" that does not start a quantifier such as {2} or {1,3} must be escaped (\\{)")
		}
	default:
		return a, nil
	}
	if p.more() && p.peek() == '?' {
		r.greedy = false
		p.pos++
	}
	return r, nil
}

// noQuantifier returns an assertion, which with the u flag cannot be
// repeated.
func (p *parser) noQuantifier(n *node) (*node, error) {
	if p.more() {
		switch p.peek() {
		case '*', '+', '?':
			return nil, p.errorf("nothing to repeat: an assertion cannot be quantified")
		case '{':
			save := p.pos
			if ok, _ := p.braces(&node{}); ok {
				p.pos = save
				return nil, p.errorf("nothing to repeat: an assertion cannot be quantified")
			}
			p.pos = save
		}
	}
	return n, nil
}

// braces reads {n}, {n,} or {n,m} into r; false (and an unmoved
// position) when the text is not one.
func (p *parser) braces(r *node) (bool, error) {
	save := p.pos
	p.pos++ // '{'
	lo, ok := p.number()
	if !ok {
		p.pos = save
		return false, nil
	}
	hi := lo
	if p.more() && p.peek() == ',' {
		p.pos++
		hi = -1
		if p.more() && p.peek() != '}' {
			if hi, ok = p.number(); !ok {
				p.pos = save
				return false, nil
			}
		}
	}
	if !p.more() || p.peek() != '}' {
		p.pos = save
		return false, nil
	}
	p.pos++
	if hi >= 0 && hi < lo {
		return false, p.errorf("numbers out of order in a {%d,%d} quantifier", lo, hi)
	}
	r.min, r.max = lo, hi
	return true, nil
}

// number reads DecimalDigits, its value capped at maxCount.
func (p *parser) number() (int, bool) {
	start := p.pos
	n := 0
	for p.more() && p.peek() >= '0' && p.peek() <= '9' {
		n = min(n*10+int(p.peek()-'0'), maxCount)
		p.pos++
	}
	return n, p.pos > start
}

func (p *parser) atom() (*node, error) {
	switch c := p.peek(); c {
	case '.':
		p.pos++
		return &node{kind: kSet, set: dotSet()}, nil
	case '(':
		if p.at("(?:") {
			p.pos += 3
			return p.group()
		}
		if p.at("(?<") {
			p.pos += 3
			nameAt := p.pos
			name, err := p.groupName()
			if err != nil {
				return nil, err
			}
			if _, dup := p.names[name]; dup {
				p.pos = nameAt
				return nil, p.errorf("two groups are named %q", name)
			}
			p.groups++
			p.names[name] = p.groups
			return p.capture(p.groups)
		}
		if p.at("(?") {
			return nil, p.errorf("\"(?\" must start (?:, (?=, (?!, (?<=, (?<! or (?<name>; inline flags, comments, atomic and conditional groups are not ECMA-262")
		}
		p.pos++
		p.groups++
		return p.capture(p.groups)
	case '[':
		return p.class()
	case '\\':
		return p.atomEscape()
	case '*', '+', '?':
		return nil, p.errorf("nothing to repeat before %q", c)
	case '{':
		if ok, _ := p.braces(&node{}); ok {
			return nil, p.errorf("nothing to repeat before a {…} quantifier")
		}
		return nil, p.errorf("a lone \"{\" must be escaped (\\{) with the u flag")
	case '}':
		return nil, p.errorf("a lone \"}\" must be escaped (\\}) with the u flag")
	case ']':
		return nil, p.errorf("a lone \"]\" must be escaped (\\]) with the u flag")
	}
	return &node{kind: kSet, set: single(p.next())}, nil
}

// capture reads a capture group's body after its opening.
func (p *parser) capture(index int) (*node, error) {
	sub, err := p.group()
	if err != nil {
		return nil, err
	}
	return &node{kind: kGroup, subs: []*node{sub}, index: index}, nil
}

// group reads a disjunction and its closing ")".
func (p *parser) group() (*node, error) {
	if p.depth++; p.depth > maxNesting {
		return nil, p.errorf("groups nest deeper than %d", maxNesting)
	}
	defer func() { p.depth-- }()
	sub, err := p.disjunction()
	if err != nil {
		return nil, err
	}
	if !p.more() {
		return nil, p.errorf("missing \")\"")
	}
	p.pos++ // ')'
	return sub, nil
}

// groupName reads RegExpIdentifierName and the closing ">".
func (p *parser) groupName() (string, error) {
	var name []rune
	for {
		if !p.more() {
			return "", p.errorf("a group name must end with \">\"")
		}
		if p.peek() == '>' {
			p.pos++
			break
		}
		at := p.pos
		var r rune
		if p.peek() == '\\' {
			p.pos++
			if !p.more() || p.peek() != 'u' {
				p.pos = at
				return "", p.errorf("only \\u escapes may appear in a group name")
			}
			var err error
			if r, err = p.unicodeEscape(); err != nil {
				return "", err
			}
		} else {
			r = p.next()
		}
		if !identifierChar(r, len(name) == 0) {
			p.pos = at
			return "", p.errorf("%q cannot appear in a group name", r)
		}
		name = append(name, r)
	}
	if len(name) == 0 {
		return "", p.errorf("a group name cannot be empty")
	}
	return string(name), nil
}

// identifierChar reports whether r may start (first) or continue a
// group name: ID_Start, "$" and "_"; then ID_Continue, ZWNJ and ZWJ too.
func identifierChar(r rune, first bool) bool {
	if r == '$' || r == '_' {
		return true
	}
	if !first && (r == 0x200c || r == 0x200d) {
		return true
	}
	name := "ID_Continue"
	if first {
		name = "ID_Start"
	}
	set, ok := property(name)
	return ok && set.CharIn(r)
}

// atomEscape reads an escape outside a class.
func (p *parser) atomEscape() (*node, error) {
	at := p.pos
	p.pos++ // '\'
	if !p.more() {
		return nil, p.errorf("\\ at the end of the pattern")
	}
	c := p.peek()
	switch {
	case c >= '1' && c <= '9':
		n, _ := p.number()
		r := &node{kind: kBackref, index: n, at: utf8.RuneCountInString(p.src[:at])}
		p.refs = append(p.refs, r)
		return r, nil
	case c == 'k':
		p.pos++
		if !p.more() || p.peek() != '<' {
			return nil, p.errorf("\\k must be followed by <name> with the u flag")
		}
		p.pos++
		name, err := p.groupName()
		if err != nil {
			return nil, err
		}
		r := &node{kind: kBackref, name: name, at: utf8.RuneCountInString(p.src[:at])}
		p.refs = append(p.refs, r)
		return r, nil
	}
	set, err := p.escape(false)
	if err != nil {
		return nil, err
	}
	return &node{kind: kSet, set: set}, nil
}

// escape reads the escape after "\" (consumed) that stands for a set: a
// class escape or one character; inClass allows \b (backspace) and \-.
func (p *parser) escape(inClass bool) (*charSet, error) {
	at := p.pos - 1
	c := p.peek()
	switch c {
	case 'd', 'D', 's', 'S', 'w', 'W':
		p.pos++
		return escapeSet(c), nil
	case 'p', 'P':
		p.pos++
		if !p.more() || p.peek() != '{' {
			return nil, p.errorf("\\%c must be followed by {property} with the u flag", c)
		}
		p.pos++
		start := p.pos
		for p.more() && p.peek() != '}' {
			p.pos++
		}
		if !p.more() {
			return nil, p.errorf("\\%c{ without its \"}\"", c)
		}
		name := p.src[start:p.pos]
		p.pos++
		set, ok := property(name)
		if !ok {
			p.pos = start
			return nil, p.errorf("%q is not a Unicode property or value ECMA-262 knows (names are exact: \\p{L}, \\p{Letter}, \\p{Script=Greek})", name)
		}
		b := setBuilder{props: []prop{{set, c == 'P'}}}
		return b.build(false), nil
	}
	r, err := p.characterEscape(inClass)
	if err != nil {
		p.pos = at
		return nil, err
	}
	return single(r), nil
}

// characterEscape reads CharacterEscape[+U] (and, in a class, \b and \-).
func (p *parser) characterEscape(inClass bool) (rune, error) {
	c := p.peek()
	switch c {
	case 'f':
		p.pos++
		return '\f', nil
	case 'n':
		p.pos++
		return '\n', nil
	case 'r':
		p.pos++
		return '\r', nil
	case 't':
		p.pos++
		return '\t', nil
	case 'v':
		p.pos++
		return '\v', nil
	case 'c':
		if p.pos+1 < len(p.src) {
			if l := p.src[p.pos+1]; l >= 'a' && l <= 'z' || l >= 'A' && l <= 'Z' {
				p.pos += 2
				return rune(l % 32), nil
			}
		}
		return 0, p.errorf("\\c must be followed by a letter with the u flag")
	case '0':
		if p.pos+1 < len(p.src) && p.src[p.pos+1] >= '0' && p.src[p.pos+1] <= '9' {
			return 0, p.errorf("\\0 followed by a digit is not an escape with the u flag (octal escapes are not)")
		}
		p.pos++
		return 0, nil
	case 'x':
		if p.pos+2 < len(p.src) && isHex(p.src[p.pos+1]) && isHex(p.src[p.pos+2]) {
			v, _ := strconv.ParseUint(p.src[p.pos+1:p.pos+3], 16, 8)
			p.pos += 3
			return rune(v), nil
		}
		return 0, p.errorf("\\x must be followed by two hexadecimal digits")
	case 'u':
		return p.unicodeEscape()
	case '^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/':
		p.pos++
		return rune(c), nil
	case 'b':
		if inClass {
			p.pos++
			return '\b', nil
		}
	case '-':
		if inClass {
			p.pos++
			return '-', nil
		}
	}
	if c >= '1' && c <= '9' && inClass {
		return 0, p.errorf("a backreference (\\%c) cannot appear in a class", c)
	}
	r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
	return 0, p.errorf("\\%c is not an escape with the u flag (only syntax characters and / may be escaped; write %c alone)", r, r)
}

// unicodeEscape reads RegExpUnicodeEscapeSequence[+U] at "u": \uXXXX (a
// surrogate pair of two such escapes reads as one code point) or
// \u{X…} up to 10FFFF.
func (p *parser) unicodeEscape() (rune, error) {
	p.pos++ // 'u'
	if p.more() && p.peek() == '{' {
		p.pos++
		start := p.pos
		v := 0
		for p.more() && isHex(p.peek()) {
			v = v*16 + hexVal(p.peek())
			if v > maxRune {
				return 0, p.errorf("\\u{…} past 10FFFF")
			}
			p.pos++
		}
		if p.pos == start || !p.more() || p.peek() != '}' {
			return 0, p.errorf("\\u{ must hold hexadecimal digits and end with \"}\"")
		}
		p.pos++
		return rune(v), nil
	}
	v, ok := p.hex4()
	if !ok {
		return 0, p.errorf("\\u must be followed by four hexadecimal digits or {…}")
	}
	if v >= 0xd800 && v <= 0xdbff && p.at(`\u`) {
		save := p.pos
		p.pos += 2
		if lo, ok := p.hex4(); ok && lo >= 0xdc00 && lo <= 0xdfff {
			return 0x10000 + (rune(v)-0xd800)<<10 + rune(lo) - 0xdc00, nil
		}
		p.pos = save
	}
	return rune(v), nil
}

func (p *parser) hex4() (int, bool) {
	if len(p.src)-p.pos < 4 {
		return 0, false
	}
	v := 0
	for i := 0; i < 4; i++ {
		c := p.src[p.pos+i]
		if !isHex(c) {
			return 0, false
		}
		v = v*16 + hexVal(c)
	}
	p.pos += 4
	return v, true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// class reads a CharacterClass.
func (p *parser) class() (*node, error) {
	p.pos++ // '['
	negate := false
	if p.more() && p.peek() == '^' {
		negate = true
		p.pos++
	}
	var b setBuilder
	for {
		if !p.more() {
			return nil, p.errorf("missing \"]\"")
		}
		if p.peek() == ']' {
			p.pos++
			break
		}
		lo, loSet, err := p.classAtom()
		if err != nil {
			return nil, err
		}
		if p.more() && p.peek() == '-' && p.pos+1 < len(p.src) && p.src[p.pos+1] != ']' {
			dash := p.pos
			p.pos++
			hi, hiSet, err := p.classAtom()
			if err != nil {
				return nil, err
			}
			if loSet != nil || hiSet != nil {
				p.pos = dash
				return nil, p.errorf("a class escape (\\d, \\s, \\w, \\p{…}) cannot bound a range with the u flag")
			}
			if hi < lo {
				p.pos = dash
				return nil, p.errorf("range out of order in a class")
			}
			b.addRange(lo, hi)
			continue
		}
		if loSet != nil {
			b.addSet(loSet)
		} else {
			b.addRune(lo)
		}
	}
	return &node{kind: kSet, set: b.build(negate)}, nil
}

// classAtom reads one character of a class, or a class escape (set).
func (p *parser) classAtom() (rune, *charSet, error) {
	if p.peek() != '\\' {
		return p.next(), nil, nil
	}
	p.pos++
	if !p.more() {
		return 0, nil, p.errorf("\\ at the end of the pattern")
	}
	switch p.peek() {
	case 'd', 'D', 's', 'S', 'w', 'W', 'p', 'P':
		set, err := p.escape(true)
		return 0, set, err
	}
	r, err := p.characterEscape(true)
	return r, nil, err
}

// mergeSets turns alternatives that each match one code point (a|b|\d)
// into one set: the same strings match, and a loop over it keeps one
// frame of the backtracking engine instead of one per iteration.
func mergeSets(n *node) *node {
	var b setBuilder
	for _, s := range n.subs {
		if s.kind != kSet {
			return n
		}
		b.addSet(s.set)
	}
	return &node{kind: kSet, set: b.build(false)}
}

package regex

import "sync"

// Regexp is a compiled pattern. It is immutable and safe for concurrent
// use.
type Regexp struct {
	src      string
	linear   *prog     // the linear engine's program, or nil
	back     *prog     // the backtracking engine's, when linear is nil
	anchored bool      // every match starts at the beginning of the input
	runs     sync.Pool // *pikeRun or *backtracker, kept between matches
}

// Compile parses src as an ECMA-262 pattern with the u flag. The error is
// a *SyntaxError that says where and why a text is not one.
func Compile(src string) (*Regexp, error) {
	tree, groups, err := parse(src)
	if err != nil {
		return nil, err
	}
	re := &Regexp{src: src, anchored: anchored(tree)}
	if p, ok := compileLinear(tree); ok {
		re.linear = p
	} else {
		re.back = compileBacktrack(tree, groups)
	}
	return re, nil
}

// Valid reports whether src is an ECMA-262 pattern with the u flag.
func Valid(src string) bool {
	_, _, err := parse(src)
	return err == nil
}

// String returns the pattern's source.
func (re *Regexp) String() string { return re.src }

// Linear reports whether the pattern runs on the linear-time engine.
func (re *Regexp) Linear() bool { return re.linear != nil }

// Match reports whether the pattern matches somewhere in s, spending b.
// The error is ErrSteps, ErrMemory or ErrStopped when it could not tell.
func (re *Regexp) Match(s string, b *Budget) (bool, error) {
	if re.linear != nil {
		m, _ := re.runs.Get().(*pikeRun)
		if m == nil {
			m = newPikeRun(re.linear)
		}
		defer re.runs.Put(m)
		defer func() { m.s, m.b = "", nil }()
		return pike(m, s, re.anchored, b)
	}
	m, _ := re.runs.Get().(*backtracker)
	if m == nil {
		m = newBacktracker(re.back)
	}
	defer re.runs.Put(m)
	defer func() { m.s, m.b = "", nil }()
	return m.match(s, re.anchored, b)
}

package schema

import (
	"errors"
	"fmt"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// compilePattern compiles an ECMA-262 regular expression, as "pattern",
// "patternProperties" and "format": "regex" use: with the "u" flag's
// Unicode semantics (\p{...}, code points), or, for a pattern only valid
// without it (Annex B's lenient escapes), without.
func compilePattern(src string, timeout time.Duration) (*regexp2.Regexp, error) {
	re, err := regexp2.Compile(src, regexp2.ECMAScript|regexp2.Unicode)
	if err != nil {
		var err2 error
		if re, err2 = regexp2.Compile(src, regexp2.ECMAScript); err2 != nil {
			return nil, err
		}
	}
	if timeout <= 0 {
		timeout = DefaultMatchTimeout
	}
	re.MatchTimeout = timeout
	return re, nil
}

// newPattern compiles the pattern of a keyword at schema location at.
func (b *builder) newPattern(src, at string) (*pattern, error) {
	re, ok := b.c.patterns[src]
	if !ok {
		var err error
		if re, err = compilePattern(src, b.c.opts.matchTimeout); err != nil {
			return nil, fmt.Errorf("%s: %q is not an ECMA-262 regular expression: %w", at, src, err)
		}
		b.c.patterns[src] = re
	}
	return &pattern{src: src, re: re, at: at}, nil
}

// errUndecided is a match that ran out of its time or backtracking bound.
var errUndecided = errors.New("pattern could not be decided")

// match reports whether the pattern matches somewhere in s (ECMA-262
// patterns are not anchored). err is errUndecided, with the reason, when
// the match ran past its bound.
func (pt *pattern) match(s string) (bool, error) {
	ok, err := pt.re.MatchString(s)
	if err != nil {
		return false, fmt.Errorf("%w: %w", errUndecided, err)
	}
	return ok, nil
}

// undecided is the message of a value a pattern could not be decided on.
func (pt *pattern) undecided(err error) string {
	return fmt.Sprintf("the pattern %q (%s) could not be decided on this value within its bound (%v); a shorter or simpler value may be checked", pt.src, pt.at, err)
}

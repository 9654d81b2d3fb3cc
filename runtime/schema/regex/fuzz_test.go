package regex

import (
	"errors"
	"testing"
)

// FuzzCompileAndMatch: any text either compiles or is a *SyntaxError,
// never a panic; Valid agrees with Compile; and on a pattern the linear
// engine runs, the backtracking engine gives the same verdict whenever
// both decide within the budget.
func FuzzCompileAndMatch(f *testing.F) {
	for _, s := range []string{`^(a+)+$`, `(?<=\$)\d+`, `[^\p{L}\d]{2,3}?`, `(?<n>a)\k<n>`, `\u{1F600}|.`, `(?i)a`, `[b-a]`, `a{2,}`, `(?:)*`} {
		f.Add(s, "aa$12 😀")
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		re, err := Compile(p)
		if Valid(p) != (err == nil) {
			t.Fatalf("%q: Valid %v, Compile %v", p, Valid(p), err)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q: %T %v", p, err, err)
			}
			return
		}
		got, err := re.Match(s, &Budget{Steps: 1e5})
		if err != nil && !errors.Is(err, ErrSteps) && !errors.Is(err, ErrMemory) {
			t.Fatalf("%q on %q: %v", p, s, err)
		}
		if !re.Linear() || err != nil {
			return
		}
		tree, groups, _ := parse(p)
		bt, berr := backtrack(compileBacktrack(tree, groups), s, anchored(tree), &Budget{Steps: 1e5})
		if berr == nil && bt != got {
			t.Fatalf("%q on %q: linear %v, backtracking %v", p, s, got, bt)
		}
	})
}

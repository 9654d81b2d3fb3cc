package regex

import (
	"errors"
	"strings"
	"testing"
)

// match compiles p and matches s with a large budget, on the engine
// Compile chose.
func match(t *testing.T, p, s string) bool {
	t.Helper()
	re, err := Compile(p)
	if err != nil {
		t.Fatalf("%q: %v", p, err)
	}
	got, err := re.Match(s, &Budget{Steps: 1e8})
	if err != nil {
		t.Fatalf("%q on %q: %v", p, s, err)
	}
	return got
}

// bothEngines matches s on the backtracking engine too, when the linear
// one would run the pattern, and fails the test if they disagree.
func bothEngines(t *testing.T, p, s string) bool {
	t.Helper()
	got := match(t, p, s)
	tree, groups, _ := parse(p)
	back, err := backtrack(compileBacktrack(tree, groups), s, anchored(tree), &Budget{Steps: 1e8})
	if err != nil || back != got {
		t.Errorf("%q on %q: the engines disagree: Compile's %v, backtracking %v (%v)", p, s, got, back, err)
	}
	return got
}

func TestMatchesAsECMA262Says(t *testing.T) {
	tests := []struct {
		pattern, value string
		match          bool
	}{
		{`^abc$`, "abc\n", false}, // $ is the end only, not before a final newline
		{`^abc$`, "abc", true},
		{`^\d+$`, "١٢٣", false}, // \d is ASCII
		{`^\w+$`, "é", false},   // \w is ASCII
		{`^\s$`, "\u00a0", true},
		{`^\s$`, "\ufeff", true},
		{`^\s$`, "\v", true},
		{`^\s$`, "\u2003", true},
		{`^\s$`, "\u2013", false},
		{`^\S$`, "\u0001", true},
		{`^.$`, "\r", false}, // . stops at line terminators
		{`^.$`, "\u2028", false},
		{`^.$`, "😀", true},    // a code point, with the u flag
		{`^[^a]$`, "😀", true}, // a class matches a code point
		{`^\p{Lu}$`, "É", true},
		{`^\p{Letter}+$`, "héllo", true},
		{`^\p{digit}+$`, "\u09ea\u09e8", true},
		{`^\P{L}$`, "1", true},
		{`^[\P{L}a]$`, "a", true},
		{`^[^\P{L}]$`, "b", true},
		{`^[^\P{L}]$`, "1", false},
		{`^\p{Script=Greek}$`, "α", true},
		{`a{2}`, "caab", true}, // not anchored
		{`a{2}`, "cab", false},
		{`^a{2,}$`, "aaaa", true},
		{`^a{2,3}$`, "aaaa", false},
		{`^(?:ab){2}$`, "abab", true},
		{`\bfoo\b`, "a foo b", true},
		{`\bfoo\b`, "afoo b", false},
		{`\Bfoo`, "afoo", true},
		{`^\cC$`, "\u0003", true},
		{`^\cc$`, "\u0003", true},
		{`^\t$`, "\t", true},
		{`^\x41\u0042\u{43}$`, "ABC", true},
		{`^\uD83D\uDC32$`, "🐲", true}, // a surrogate pair of escapes is one code point
		{`^🐲*$`, "🐲🐲", true},
		{`^🐲*$`, "🐉", false},
		{`^[]$`, "", false},
		{`^[^]$`, "\n", true},
		{`^[\b]$`, "\b", true},
		{`^[\-a]+$`, "-a", true},
		{`^[a-]$`, "-", true},
		{`^\/$`, "/", true},
		{`^\0$`, "\x00", true},
		{`x|`, "", true}, // an empty alternative matches
		{`^(a|ab)c$`, "abc", true},
		{`^(a+)+$`, "aaaa", true},
		{`(?:)`, "", true},
		{`^(a*)*$`, "b", false},
		{`^(a*)+$`, "aaa", true},
	}
	for _, tt := range tests {
		if got := bothEngines(t, tt.pattern, tt.value); got != tt.match {
			t.Errorf("%q on %q: match = %v, want %v", tt.pattern, tt.value, got, tt.match)
		}
	}
}

func TestBacktrackingFollowsECMA262(t *testing.T) {
	tests := []struct {
		pattern, value string
		match          bool
	}{
		{`^(?<y>\d{4})-\k<y>$`, "2024-2024", true},
		{`^(?<y>\d{4})-\k<y>$`, "2024-2025", false},
		{`^(a)\1$`, "aa", true},
		{`^\1(a)$`, "a", true},           // a backreference before its group matches the empty string
		{`^(?:(a)|b)\1$`, "b", true},     // to a group that captured nothing, too
		{`^(?:(a)|b)+\1$`, "ab", true},   // each iteration clears the loop's groups
		{`^(?:(a)|b)+\1$`, "aba", false}, // so after "b", \1 is empty and "a" is left over
		{`^(?=.*\d)(?=.*[a-z]).{8,}$`, "abcdefg1", true},
		{`^(?=.*\d)(?=.*[a-z]).{8,}$`, "abcdefgh", false},
		{`^(?!.*admin).*$`, "root", true},
		{`^(?!.*admin).*$`, "sysadmin", false},
		{`(?<=\$)\d+`, "cost $42", true},
		{`(?<=\$)\d+`, "cost 42", false},
		{`(?<!\$)\b\d+`, "cost $42", false},
		{`(?<=(\d+)(\d+))$`, "1053", true},
		{`^(?=(a+))a*b\1$`, "baaabac", false},
		{`(?=(a+))a*b\1`, "baaabac", true}, // ECMA-262's own example: matches "aba"
		{`^(?:a|\1b)(x)$`, "ax", true},
		{`(?<=a(?=b)b)c`, "abc", true},
		{`^(?:(?=(\w))\1)+$`, "abc", true},
		{`(?<=\1(a))b`, "aab", true}, // in a lookbehind the group is read first
	}
	for _, tt := range tests {
		re, err := Compile(tt.pattern)
		if err != nil {
			t.Errorf("%q: %v", tt.pattern, err)
			continue
		}
		if re.Linear() {
			t.Errorf("%q runs on the linear engine", tt.pattern)
		}
		if got := match(t, tt.pattern, tt.value); got != tt.match {
			t.Errorf("%q on %q: match = %v, want %v", tt.pattern, tt.value, got, tt.match)
		}
	}
}

func TestTextsThatAreNotECMA262PatternsAreRefused(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{`(?i)abc`, `"(?" must start`},
		{`(?ims)abc`, `"(?" must start`},
		{`(?#comment)a`, `"(?" must start`},
		{`(?>a+)b`, `"(?" must start`},
		{`(?(1)a|b)`, `"(?" must start`},
		{`(?P<name>x)`, `"(?" must start`},
		{`\A`, `\A is not an escape`},
		{`\z`, `\z is not an escape`},
		{`\e`, `\e is not an escape`},
		{`\a`, `\a is not an escape`},
		{`\-`, `\- is not an escape`},
		{`^(abc]`, `lone "]"`},
		{`^(abc`, `missing ")"`},
		{`a)`, `unmatched ")"`},
		{`[b-a]`, `range out of order`},
		{`[\d-z]`, `cannot bound a range`},
		{`a{2,1}`, `numbers out of order`},
		{`a{`, `"{" that does not start a quantifier`},
		{`{`, `lone "{"`},
		{`}`, `lone "}"`},
		{`]`, `lone "]"`},
		{`*a`, `nothing to repeat`},
		{`a**`, `nothing to repeat`},
		{`^*`, `assertion cannot be quantified`},
		{`(?=a)*`, `assertion cannot be quantified`},
		{`\1`, `refers to group 1, but the pattern has 0`},
		{`(a)\2`, `refers to group 2, but the pattern has 1`},
		{`\k<x>`, `\k<x> names no group`},
		{`\k`, `\k must be followed by <name>`},
		{`(?<a>x)(?<a>y)`, `two groups are named "a"`},
		{`(?<1a>x)`, `cannot appear in a group name`},
		{`\p{Foo}`, `"Foo" is not a Unicode property`},
		{`\p{letter}`, `"letter" is not a Unicode property`},
		{`\p{L`, `\p{ without its "}"`},
		{`\pL`, `\p must be followed by {property}`},
		{`\c1`, `\c must be followed by a letter`},
		{`\00`, `\0 followed by a digit`},
		{`\x4`, `\x must be followed by two hexadecimal digits`},
		{`\u12`, `\u must be followed by four hexadecimal digits`},
		{`\u{110000}`, `past 10FFFF`},
		{`[\1]`, `backreference (\1) cannot appear in a class`},
		{`[\B]`, `\B is not an escape`},
		{`a\`, `\ at the end`},
		{`[a`, `missing "]"`},
		{"\xff", `not valid UTF-8`},
	}
	for _, tt := range tests {
		_, err := Compile(tt.pattern)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want one containing %q", tt.pattern, err, tt.want)
		}
	}
}

func TestSyntaxErrorsSayWhere(t *testing.T) {
	_, err := Compile(`ab(?i)c`)
	if err == nil || !strings.HasSuffix(err.Error(), "(at character 3)") {
		t.Errorf("error %v, want it at character 3", err)
	}
}

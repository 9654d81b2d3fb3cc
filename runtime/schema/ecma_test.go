package schema

import "testing"

// TestPatternsFollowECMA262 pins the points where ECMA-262 differs from
// RE2 and from .NET (regexp2's origin).
func TestPatternsFollowECMA262(t *testing.T) {
	tests := []struct {
		pattern, value string
		match          bool
	}{
		{`^abc$`, "abc\n", false}, // $ is the end only, not before a final newline
		{`^\d+$`, "١٢٣", false},   // \d is ASCII
		{`^\w+$`, "é", false},     // \w is ASCII
		{`^\s$`, "\u00a0", true},  // \s is Unicode white space
		{`^\s$`, "\ufeff", true},  // U+FEFF too
		{`^\s$`, "\v", true},      // and \v
		{`^.$`, "\r", false},      // . stops at line terminators
		{`^.$`, "😀", true},        // a code point, with the u flag
		{`^[^a]$`, "😀", true},     // a class matches a code point
		{`^\p{Lu}$`, "É", true},   // Unicode properties
		{`a{2}`, "caab", true},    // unanchored search
		{`^(?<y>\d{4})-\k<y>$`, "2024-2024", true},
		{`\bfoo\b`, "a foo b", true},
	}
	for _, tt := range tests {
		re, err := compilePattern(tt.pattern, 0)
		if err != nil {
			t.Errorf("%q: %v", tt.pattern, err)
			continue
		}
		if got, err := re.MatchString(tt.value); err != nil || got != tt.match {
			t.Errorf("%q on %q: match = %v (%v), want %v", tt.pattern, tt.value, got, err, tt.match)
		}
	}
}

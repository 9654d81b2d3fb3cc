package runtime

import "testing"

func TestPolicyAllows(t *testing.T) {
	p := Policy{
		Default: []string{"computer.screenshot"},
		Origins: map[string][]string{
			"https://chat.example":   {"computer.*"},
			"https://*.trusted.dev":  {"*"},
			"https://*.dev":          {"browser.*"},
			"https://locked.example": {},
		},
	}
	tests := []struct {
		name       string
		policy     Policy
		origin     string
		capability string
		want       bool
	}{
		{"zero policy allows everything", Policy{}, "https://any.example", "computer.click", true},
		{"exact origin, matching glob", p, "https://chat.example", "computer.click", true},
		{"exact origin, other prefix", p, "https://chat.example", "browser.open", false},
		{"exact origin entry replaces default", p, "https://chat.example", "computer.screenshot", true},
		{"empty entry denies all", p, "https://locked.example", "computer.screenshot", false},
		{"unlisted origin falls back to default", p, "https://other.example", "computer.screenshot", true},
		{"unlisted origin outside default", p, "https://other.example", "computer.click", false},
		{"glob origin key", p, "https://a.trusted.dev", "anything.at_all", true},
		{"glob origin keys are unioned", p, "https://a.trusted.dev", "browser.open", true},
		{"glob origin key does not match the bare domain", p, "https://trusted.dev", "computer.click", false},
		{"no-page caller is allowed", p, "", "computer.click", true},
		{"no-page caller can be restricted", Policy{Origins: map[string][]string{"": {"computer.screenshot"}}}, "", "computer.click", false},
		{"star does not allow a near miss", Policy{Default: []string{"computer.*"}}, "https://x", "computerx.click", false},
		{"pattern must match the whole name", Policy{Default: []string{"computer.click"}}, "https://x", "computer.click_twice", false},
		{"star in the middle", Policy{Default: []string{"computer.*_text"}}, "https://x", "computer.type_text", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.policy.Allows(tc.origin, tc.capability); got != tc.want {
				t.Errorf("Allows(%q, %q) = %v, want %v", tc.origin, tc.capability, got, tc.want)
			}
		})
	}
}

func FuzzGlobMatch(f *testing.F) {
	f.Add("computer.*", "computer.click")
	f.Add("*.*.*", "a.b")
	f.Add("a*b*c*d*e*f", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if globMatch(pattern, s) && !globMatch(pattern, s) {
			t.Fatal("not deterministic")
		}
		if globMatch(s, s) == false && !containsStar(s) {
			t.Fatalf("%q does not match itself", s)
		}
	})
}

func containsStar(s string) bool {
	for i := range len(s) {
		if s[i] == '*' {
			return true
		}
	}
	return false
}

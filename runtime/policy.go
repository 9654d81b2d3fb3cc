package runtime

import "strings"

// Policy decides which capabilities a web page origin may execute. Patterns
// are globs where '*' matches any run of characters (dots included):
// "computer.*", "computer.click", "*".
//
// Resolution for an origin: its exact entry in Origins if there is one;
// otherwise the union of every entry whose key is a glob matching it (for
// example "https://*.example.com"); otherwise Default. The zero Policy (no
// Default, no Origins) allows everything; once either is set, an origin that
// resolves to no pattern is denied. The empty origin (calls that did not come
// from a page) is allowed unless Origins has an entry for "".
// Meta-capabilities are always allowed; the runtime does not ask the policy.
type Policy struct {
	Default []string            `json:"default,omitempty"`
	Origins map[string][]string `json:"origins,omitempty"`
}

// Allows reports whether origin may execute capability.
func (p Policy) Allows(origin, capability string) bool {
	if len(p.Default) == 0 && len(p.Origins) == 0 {
		return true
	}
	patterns, ok := p.Origins[origin]
	if !ok {
		if origin == "" {
			return true
		}
		for key, ps := range p.Origins {
			if strings.Contains(key, "*") && globMatch(key, origin) {
				ok = true
				patterns = append(patterns[:len(patterns):len(patterns)], ps...)
			}
		}
	}
	if !ok {
		patterns = p.Default
	}
	for _, pat := range patterns {
		if globMatch(pat, capability) {
			return true
		}
	}
	return false
}

// globMatch matches s against pattern, where '*' matches any (possibly
// empty) run of characters and everything else matches itself.
func globMatch(pattern, s string) bool {
	// Iterative matcher with single-star backtracking: linear in practice,
	// never exponential.
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Decision is what the policy says about one call: run it, ask the user
// first, or refuse it.
type Decision int

// Decisions, from the most to the least restrictive. The zero Decision is
// Deny, so anything not granted is refused.
const (
	Deny Decision = iota
	Ask
	Allow
)

var decisionNames = [...]string{Deny: "deny", Ask: "ask", Allow: "allow"}

// String returns "deny", "ask" or "allow": the words of the wire and the config.
func (d Decision) String() string {
	if d < Deny || d > Allow {
		return fmt.Sprintf("Decision(%d)", int(d))
	}
	return decisionNames[d]
}

// MarshalText writes the decision's word.
func (d Decision) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads "deny", "ask" or "allow".
func (d *Decision) UnmarshalText(b []byte) error {
	v, err := ParseDecision(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// ParseDecision reads "deny", "ask" or "allow".
func ParseDecision(s string) (Decision, error) {
	for i, n := range decisionNames {
		if s == n {
			return Decision(i), nil
		}
	}
	return Deny, fmt.Errorf("decision %q must be allow, ask or deny", s)
}

// Rule is one origin's grants: capability patterns it may run, patterns it
// may run once the user approves each call, and patterns it may never run.
// Patterns are globs where '*' matches any run of characters ("computer.*",
// "computer.click", "*"). Deny wins over Ask, Ask over Allow; a capability
// no pattern matches is denied.
//
// In JSON a Rule is either a list of patterns (all allowed: the short form
// people write by hand) or {"allow": [...], "ask": [...], "deny": [...]}.
type Rule struct {
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// UnmarshalJSON accepts the list form and the object form.
func (r *Rule) UnmarshalJSON(b []byte) error {
	var list []string
	if err := json.Unmarshal(b, &list); err == nil {
		*r = Rule{Allow: list}
		return nil
	}
	type plain Rule
	var p plain
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return errors.New(`a rule is a list of capability patterns or {"allow": [...], "ask": [...], "deny": [...]}`)
	}
	*r = Rule(p)
	return nil
}

// Decide returns the rule's decision for capability.
func (r Rule) Decide(capability string) Decision {
	switch {
	case matchesAny(r.Deny, capability):
		return Deny
	case matchesAny(r.Ask, capability):
		return Ask
	case matchesAny(r.Allow, capability):
		return Allow
	}
	return Deny
}

func (r Rule) merge(o Rule) Rule {
	cat := func(a, b []string) []string { return append(a[:len(a):len(a)], b...) }
	return Rule{Allow: cat(r.Allow, o.Allow), Ask: cat(r.Ask, o.Ask), Deny: cat(r.Deny, o.Deny)}
}

func matchesAny(patterns []string, s string) bool {
	for _, p := range patterns {
		if globMatch(p, s) {
			return true
		}
	}
	return false
}

// Policy decides which capabilities a web page origin may execute, and which
// only after the user approves the call.
//
// Resolution for an origin: its exact entry in Origins if there is one;
// otherwise the union of every entry whose key is a glob matching it (for
// example "https://*.example.com"); otherwise Default. A call with no origin
// (the CLI, the extension itself) is judged under Default, never more. The
// zero Policy denies everything: nothing runs until the user grants it.
// Meta-capabilities are always allowed; the runtime does not ask the policy.
//
// Origin keys and request origins are compared after NormalizeOrigin, so
// "HTTPS://Chat.Example.com:443/" and "https://chat.example.com" are one.
type Policy struct {
	Default Rule
	Origins map[string]Rule
}

// Decide returns the decision for capability called from origin.
func (p Policy) Decide(origin, capability string) Decision {
	return p.RuleFor(origin).Decide(capability)
}

// RuleFor resolves the rule that judges origin. An origin that cannot be
// normalised gets the empty rule (everything denied).
func (p Policy) RuleFor(origin string) Rule {
	if origin == "" {
		return p.Default
	}
	o, err := NormalizeOrigin(origin)
	if err != nil {
		return Rule{}
	}
	if r, ok := p.Origins[o]; ok {
		return r
	}
	var merged Rule
	found := false
	keys := make([]string, 0, len(p.Origins))
	for k := range p.Origins {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.Contains(k, "*") && globMatch(k, o) {
			merged, found = merged.merge(p.Origins[k]), true
		}
	}
	if found {
		return merged
	}
	return p.Default
}

// HasExact reports whether origin has an entry of its own (not a glob, not
// the default): whether the user has decided for this site.
func (p Policy) HasExact(origin string) bool {
	o, err := NormalizeOrigin(origin)
	if err != nil {
		return false
	}
	_, ok := p.Origins[o]
	return ok
}

// MatchPattern reports whether a capability pattern of a Rule matches name.
func MatchPattern(pattern, name string) bool { return globMatch(pattern, name) }

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

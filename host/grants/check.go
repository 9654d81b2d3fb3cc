package grants

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
)

// Bounds of one policy.set (docs/host-methods.md). A user's grants for one
// site name at most every tool of every provider: a few hundred names.
const (
	// MaxGrants bounds the entries of one policy.set.
	MaxGrants = 4096
	// MaxGrantName bounds one entry: a prefix, a dot and a tool name of at
	// most 128 bytes (the runtime's bound) fit with room to spare.
	MaxGrantName = 256
	// MaxParamsBytes bounds the params of one policy.set, checked before
	// they are decoded.
	MaxParamsBytes = 1 << 20
)

// decodeGrants reads params.grants and checks every entry against what the
// host runs now (see checkEntry). Shape errors are INVALID_REQUEST; a bad
// entry is INVALID_ARGUMENTS naming it, details {"field", "entry"}.
func decodeGrants(params json.RawMessage, registered []string, prefixes map[string]string) (map[string]runtime.Decision, error) {
	if len(params) > MaxParamsBytes {
		return nil, &wire.Error{Code: wire.CodeInvalidArguments, Details: map[string]string{"field": "grants"},
			Message: fmt.Sprintf("params of policy.set are %d bytes; at most %d (%d entries of at most %d bytes)", len(params), MaxParamsBytes, MaxGrants, MaxGrantName)}
	}
	var p struct {
		Grants map[string]json.RawMessage `json:"grants"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Grants == nil {
		return nil, wire.Errorf(wire.CodeInvalidRequest, `params.grants must be {"<prefix>.<tool>": "allow"|"ask"|"deny", ...}: %v`, trimJSON(err))
	}
	if len(p.Grants) > MaxGrants {
		return nil, &wire.Error{Code: wire.CodeInvalidArguments, Details: map[string]string{"field": "grants"},
			Message: fmt.Sprintf("params.grants has %d entries; at most %d", len(p.Grants), MaxGrants)}
	}
	known := make(map[string]bool, len(registered))
	for _, n := range registered {
		known[n] = true
	}
	names := make([]string, 0, len(p.Grants))
	for n := range p.Grants {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make(map[string]runtime.Decision, len(names))
	for _, n := range names {
		bad := func(format string, args ...any) error {
			return &wire.Error{Code: wire.CodeInvalidArguments, Details: map[string]string{"field": "grants", "entry": n},
				Message: "grant " + strconv.QuoteToASCII(n) + " " + fmt.Sprintf(format, args...)}
		}
		if why := checkEntry(n, known, prefixes); why != "" {
			return nil, bad("%s", why)
		}
		var word string
		if json.Unmarshal(p.Grants[n], &word) != nil {
			return nil, bad("must be \"allow\", \"ask\" or \"deny\", not %s", clipJSON(p.Grants[n]))
		}
		d, err := runtime.ParseDecision(word)
		if err != nil {
			return nil, bad("must be \"allow\", \"ask\" or \"deny\", not %s", strconv.QuoteToASCII(word))
		}
		out[n] = d
	}
	return out, nil
}

// checkEntry says why name may not be granted, "" when it may. A grant is a
// provider capability registered now ("computer.click"), or a pattern over
// one provider's tools ("computer.*", "computer.get_*") whose prefix is a
// configured provider's. prefixes maps each configured prefix to its
// provider's name.
func checkEntry(name string, registered map[string]bool, prefixes map[string]string) string {
	switch {
	case len(name) > MaxGrantName:
		return fmt.Sprintf("is %d bytes long; at most %d", len(name), MaxGrantName)
	case !utf8.ValidString(name):
		return "is not valid UTF-8"
	}
	prefix, tool, ok := strings.Cut(name, ".")
	switch {
	case !ok || prefix == "" || tool == "":
		return "is not <prefix>.<tool>"
	case strings.ContainsFunc(prefix, unicode.IsSpace):
		return "has a space in its prefix: no provider prefix has one"
	case prefix == runtime.MetaPrefix:
		return "is a meta-capability: those are always allowed and take no grant"
	case strings.Contains(prefix, "*"):
		return "is a pattern across providers: a pattern names one provider's prefix, as in computer.*"
	}
	provider, ok := prefixes[prefix]
	if !ok {
		return fmt.Sprintf("has the prefix %s, which no configured provider has", strconv.QuoteToASCII(prefix))
	}
	if err := runtime.CheckToolName(tool); err != nil {
		return fmt.Sprintf("cannot name a tool: %v", err)
	}
	switch {
	case strings.Contains(tool, "*"):
		return ""
	case !registered[name]:
		return fmt.Sprintf("is not a tool provider %s lists now (patterns need a '*')", strconv.Quote(provider))
	}
	return ""
}

func clipJSON(b json.RawMessage) string {
	s := string(b)
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}

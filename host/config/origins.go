package config

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gnosis/gnosis/runtime"
)

// Clash is a set of policy keys that name one origin.
type Clash struct {
	// Origin is the keys' normal form.
	Origin string `json:"origin"`
	// Keys are the keys as the file writes them, sorted.
	Keys []string `json:"keys"`
}

// ClashError is Load's problem for one Clash.
type ClashError struct{ Clash Clash }

func (e *ClashError) Error() string {
	quoted := make([]string, len(e.Clash.Keys))
	for i, k := range e.Clash.Keys {
		quoted[i] = strconv.Quote(k)
	}
	return fmt.Sprintf("policy.origins: keys %s are one origin, %s: it is denied everything until only one of them is left",
		strings.Join(quoted, " and "), e.Clash.Origin)
}

// denyAll is the rule of an origin whose keys clash. As an exact entry it
// overrides globs and the default; as a glob's entry its deny wins in the
// union with other globs.
var denyAll = runtime.Rule{Deny: []string{"*"}}

// normalOrigins rewrites policy keys to their normal form (so a key written
// with capitals or a trailing slash still matches its origin) and drops the
// keys that are not origins, saying why: such a key would never match, and
// its site would silently fall back to the default. Keys that name one origin
// several ways fail closed: the origin gets denyAll and a Clash, whatever
// each key granted, since picking one would grant what the user may have
// revoked under the other spelling.
func normalOrigins(in map[string]runtime.Rule, problems []error) (map[string]runtime.Rule, []Clash, []error) {
	if len(in) == 0 {
		return in, nil, problems
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	spellings := map[string][]string{}
	out := make(map[string]runtime.Rule, len(in))
	for _, k := range keys {
		n, err := runtime.NormalizeOriginKey(k)
		if err != nil {
			problems = append(problems, fmt.Errorf("policy.origins: %w (write it as https://host or https://host:port)", err))
			continue
		}
		spellings[n] = append(spellings[n], k)
		out[n] = in[k]
	}
	var clashes []Clash
	for _, n := range slices.Sorted(maps.Keys(spellings)) {
		if ks := spellings[n]; len(ks) > 1 {
			c := Clash{Origin: n, Keys: ks}
			clashes = append(clashes, c)
			out[n] = denyAll
			problems = append(problems, &ClashError{c})
		}
	}
	return out, clashes, problems
}

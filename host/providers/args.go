package providers

import (
	"slices"
	"strings"

	"github.com/gnosis/gnosis/host/redact"
	"github.com/gnosis/gnosis/runtime"
)

// Arguments may hold secrets ("--api-key=sk-...", "--token" then the
// token): providers.list shows them masked, as the host's log would, and
// providers.set and providers.check take an argument shown masked back as
// the stored one it stands for, as env takes a name alone for its stored
// value. The setup page sends back what it was shown, so editing a server
// keeps its arguments without ever receiving their secrets.

// maskArgs is args as providers.list shows them: each masked (known values
// and patterns: redact.Set.Redact), and the argument after a secret-named
// flag ("--token", "--api-key") masked whole.
func maskArgs(args []string, secrets *redact.Set) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = secrets.Redact(a)
		if i > 0 && secretFlag(args[i-1]) && !strings.HasPrefix(a, "-") && a != "" {
			out[i] = redact.Redacted
		}
	}
	return out
}

// secretFlag reports whether an argument is a flag whose name says a
// secret follows it: "--password", "-api-key", "--client-secret".
func secretFlag(a string) bool {
	name, ok := strings.CutPrefix(a, "-")
	if !ok || strings.Contains(name, "=") {
		return false
	}
	return runtime.SecretName(strings.TrimPrefix(name, "-"))
}

// restoreArgs replaces each given argument that holds redact.Redacted by
// the stored argument it was shown for, an argument left unchanged being
// the same argument in the same place: the stored one after the same
// argument (the value after "--token"), else the one at its place, else the
// first one left that it matches; the arguments with the most shown text
// choose first. An argument that matches none is INVALID_ARGUMENTS.
func restoreArgs(given, stored []string) ([]string, error) {
	var masked []int
	for i, a := range given {
		if strings.Contains(a, redact.Redacted) {
			masked = append(masked, i)
		}
	}
	if len(masked) == 0 {
		return given, nil
	}
	shown := func(i int) int { return len(given[i]) - strings.Count(given[i], redact.Redacted)*len(redact.Redacted) }
	slices.SortStableFunc(masked, func(x, y int) int { return shown(y) - shown(x) })
	out := slices.Clone(given)
	used := make([]bool, len(stored))
	free := func(i, k int) bool { return k >= 0 && k < len(stored) && !used[k] && shownFor(given[i], stored[k]) }
	for _, i := range masked {
		j := -1
		for k := 1; j < 0 && i > 0 && k < len(stored); k++ {
			if stored[k-1] == given[i-1] && free(i, k) {
				j = k
			}
		}
		if j < 0 && free(i, i) {
			j = i
		}
		for k := 0; j < 0 && k < len(stored); k++ {
			if free(i, k) {
				j = k
			}
		}
		if j < 0 {
			return nil, invalid("args", "argument %d holds %s, which stands for a stored argument only as providers.list shows it; type the argument in full", i+1, redact.Redacted)
		}
		used[j], out[i] = true, stored[j]
	}
	return out, nil
}

// shownFor reports whether shown can be stored masked: stored with each
// redact.Redacted of shown standing for some text (one byte or more).
func shownFor(shown, stored string) bool {
	parts := strings.Split(shown, redact.Redacted)
	rest, ok := strings.CutPrefix(stored, parts[0])
	if !ok {
		return false
	}
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		if len(rest) < 1 {
			return false
		}
		k := strings.Index(rest[1:], p)
		if k < 0 {
			return false
		}
		rest = rest[1+k+len(p):]
	}
	return len(rest) > len(last) && strings.HasSuffix(rest, last)
}

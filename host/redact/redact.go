// Package redact keeps secrets out of what the host writes for people: its
// log, the diagnostic report, and the stderr of providers quoted in health,
// provider.state and providers.check.
//
// Two defences, applied together. By value: once the host has seen a value
// under a secret name (a config or request field, an environment variable,
// a header such as Authorization), a Set masks that value wherever it
// recurs, under any name and in any text. By pattern: Text masks what reads
// as a credential in free text, where no field name says so: what
// runtime.RedactText finds (bearer tokens, keys of known shapes, JSON web
// tokens, key=value assignments) and the value that follows a secret word
// in prose ("password hunter2", "session cookie zQ8...", "token is ab12...").
package redact

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/gnosis/gnosis/runtime"
)

// Redacted stands in for a masked secret (runtime.Redacted).
const Redacted = runtime.Redacted

// minValue is the shortest value masked by value: shorter ones would mask
// ordinary letters and digits.
const minValue = 4

// maxValues bounds the values a Set keeps (the oldest are forgotten first),
// so a long-running host that sees many requests holds a bounded set.
const maxValues = 512

// Set is the values known to be secret, masked wherever they recur. It is
// safe for concurrent use; the zero value is empty and ready.
type Set struct {
	mu     sync.RWMutex
	order  []string        // as added, for forgetting the oldest
	known  map[string]bool // every form kept
	sorted []string        // known, longest first
}

// Add records values (each also in the form JSON text quotes it).
func (s *Set) Add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known == nil {
		s.known = map[string]bool{}
	}
	changed := false
	for _, v := range values {
		for _, form := range forms(v) {
			if len(form) < minValue || s.known[form] {
				continue
			}
			s.known[form] = true
			s.order = append(s.order, form)
			changed = true
		}
	}
	for len(s.order) > maxValues {
		delete(s.known, s.order[0])
		s.order = s.order[1:]
	}
	if changed {
		s.sorted = append(s.sorted[:0], s.order...)
		sort.SliceStable(s.sorted, func(i, j int) bool { return len(s.sorted[i]) > len(s.sorted[j]) })
	}
}

// forms is v as written and as JSON text quotes it, and a bearer
// credential's token on its own (an Authorization header's value).
func forms(v string) []string {
	out := []string{v}
	if b, err := json.Marshal(v); err == nil {
		if q := string(b[1 : len(b)-1]); q != v {
			out = append(out, q)
		}
	}
	for _, scheme := range []string{"bearer ", "basic ", "token "} {
		if len(v) > len(scheme) && strings.EqualFold(v[:len(scheme)], scheme) {
			out = append(out, strings.TrimSpace(v[len(scheme):]))
		}
	}
	return out
}

// AddEnv records the values of the secret-named variables of env
// (runtime.SecretName: API_KEY, GITHUB_TOKEN, DB_PASSWORD).
func (s *Set) AddEnv(env map[string]string) {
	for k, v := range env {
		if runtime.SecretName(k) {
			s.Add(v)
		}
	}
}

// AddEnviron records the values of the secret-named variables of an
// environment list ("NAME=value", as os.Environ gives it), but for the
// shell's working folders (PWD reads as a password).
func (s *Set) AddEnviron(environ []string) {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && runtime.SecretName(k) && k != "PWD" && k != "OLDPWD" {
			s.Add(v)
		}
	}
}

// AddJSON records the scalar values under secret-named fields of the JSON
// text raw, at any depth (runtime.SecretValues: a request's "password", a
// header map's "Authorization", an env map's "OPENAI_API_KEY"). Text larger
// than 1 MiB or not JSON is not scanned.
func (s *Set) AddJSON(raw []byte) {
	if !mayNameSecret(raw) {
		return
	}
	if found := runtime.SecretValues(raw); len(found) > 0 {
		s.Add(found...)
	}
}

// mayNameSecret reports, quickly, whether raw may hold a secret-named
// field: a part of every name runtime.SecretName accepts, in any case.
// Params without one (most calls) are not decoded; a plain byte search, as
// the request path is the host's per-call latency.
func mayNameSecret(raw []byte) bool {
	lower := bytes.ToLower(raw)
	for _, w := range nameParts {
		if bytes.Contains(lower, w) {
			return true
		}
	}
	return false
}

// nameParts are the parts, in lower case, of the names runtime.SecretName
// accepts (TestNamePartsCoverSecretNames).
var nameParts = asBytes([]string{"pass", "pwd", "secret", "token", "key", "auth", "cookie", "credential", "signature", "session"})

// Values is how many forms of secret values s holds.
func (s *Set) Values() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.order)
}

// Redact masks every known value in text, then what Text finds. A nil Set
// knows no value.
func (s *Set) Redact(text string) string {
	if s != nil {
		s.mu.RLock()
		for _, v := range s.sorted {
			if strings.Contains(text, v) {
				text = strings.ReplaceAll(text, v, Redacted)
			}
		}
		s.mu.RUnlock()
	}
	return Text(text)
}

// Text masks what reads as a credential in free text: runtime.RedactText's
// shapes, then the value after a secret word in prose.
func Text(text string) string {
	text = runtime.RedactText(text)
	return prose.ReplaceAllStringFunc(text, func(m string) string {
		sub := prose.FindStringSubmatch(m)
		value := sub[2]
		if value == Redacted || strings.HasPrefix(value, Redacted) || plainWord(value) {
			return m
		}
		return sub[1] + Redacted
	})
}

// prose is a secret word (password, passphrase, secret, token, api key,
// access key, session id, cookie, session cookie, credentials), an optional
// connector ("is", "was", "=", ":"), and the value: everything up to
// whitespace, a quote, a backslash or a separator.
var prose = regexp.MustCompile(`(?i)(\b(?:pass(?:word|wd|phrase)|pwd|secret|token|api[ _-]?key|access[ _-]?key|private[ _-]?key|session[ _-]?id|cookie|credentials?)` +
	`(?:\s+(?:is|was|of|=|:))?\s*[=:]?\s+)([^\s"'\\,;]+)`)

// plainWord is a value that reads as prose, not as a secret: a short
// lower-case word ("token expired", "password required", "cookie jar").
func plainWord(v string) bool {
	if len(v) > 12 {
		return false
	}
	for _, c := range v {
		if (c < 'a' || c > 'z') && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

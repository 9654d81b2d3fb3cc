// Package redact keeps secrets out of what the host writes for people: its
// log (file and stderr), the diagnostic report, and what health,
// provider.state, providers.list and providers.check quote of a provider
// (its error, its stderr, its arguments).
//
// Two defences, applied together. By value: once the host has seen a value
// under a secret name (a config or request field, an environment variable,
// a header such as Authorization), a Set masks that value wherever it
// recurs, under any name, in any text, and in the forms a program may
// write it in: JSON-quoted, percent-encoded, base64-encoded (also inside a
// longer base64 text), or cut by a line break. By pattern: Text masks what
// reads as a credential in free text, where no field name says so: what
// runtime.RedactText finds (bearer tokens, keys of known shapes, JSON web
// tokens, key=value assignments), a quoted secret-named value to its real
// closing quote (past escaped quotes), the value after a secret word in
// prose ("password hunter2", "token is ab12...") or on the line after one
// ("password:" then the value), and the body of a private key block.
// docs/security.md ("Secrets in free text") states the rules as a table.
package redact

import (
	"bytes"
	"strings"
	"sync"

	"github.com/gnosis/gnosis/runtime"
)

// Redacted stands in for a masked secret (runtime.Redacted).
const Redacted = runtime.Redacted

// minValue is the shortest value masked by value: shorter ones would mask
// ordinary letters and digits. It is also the shortest piece of a value
// masked where a line cuts it.
const minValue = 4

// Bounds of the values learned from requests (AddJSON): MaxLearned values,
// maxLearnedBytes of them, none longer than maxValueBytes. Past them a value
// is not recorded (Missed counts it); no recorded value is ever dropped, so
// a flood of secret-named fields cannot push out one the host knows. Values
// from the configuration and the environment (Add, AddEnv, AddEnviron) are
// not bounded: the user wrote them, and they are few.
const (
	MaxLearned      = 4096
	maxLearnedBytes = 1 << 20
	maxValueBytes   = 16 << 10 // a longer value under a secret name is not a password
)

// Set is the values known to be secret, masked wherever they recur. It is
// safe for concurrent use; the zero value is empty and ready; a nil Set
// records nothing and masks by pattern only.
type Set struct {
	mu           sync.RWMutex
	values       map[string]bool // every value recorded, as given
	learned      int             // how many of them came from requests
	learnedBytes int
	missed       int
	idx          index // the forms of every value, for matching
}

// Add records values known to be secret from the configuration or the
// environment: kept for the host's life.
func (s *Set) Add(values ...string) { s.add(values, false) }

// AddEnv records the values of the secret-named variables of env
// (runtime.SecretName: API_KEY, GITHUB_TOKEN, DB_PASSWORD), as Add does.
func (s *Set) AddEnv(env map[string]string) {
	for k, v := range env {
		if runtime.SecretName(k) {
			s.add([]string{v}, false)
		}
	}
}

// AddEnviron records the values of the secret-named variables of an
// environment list ("NAME=value", as os.Environ gives it), as Add does, but
// for the shell's working folders (PWD reads as a password).
func (s *Set) AddEnviron(environ []string) {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && runtime.SecretName(k) && k != "PWD" && k != "OLDPWD" {
			s.add([]string{v}, false)
		}
	}
}

// AddJSON records the scalar values under secret-named fields of the JSON
// text raw, at any depth (runtime.SecretValues: a request's "password", a
// header map's "Authorization", an env map's "OPENAI_API_KEY"), within the
// bounds of learned values. Text larger than 1 MiB or not JSON is not
// scanned.
func (s *Set) AddJSON(raw []byte) {
	if !mayNameSecret(raw) {
		return
	}
	if found := runtime.SecretValues(raw); len(found) > 0 {
		s.add(found, true)
	}
}

func (s *Set) add(values []string, learned bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.values == nil {
		s.values = map[string]bool{}
	}
	for _, v := range values {
		if len(v) < minValue || s.values[v] {
			continue
		}
		if learned {
			if len(v) > maxValueBytes || s.learned >= MaxLearned || s.learnedBytes+len(v) > maxLearnedBytes {
				s.missed++
				continue
			}
			s.learned++
			s.learnedBytes += len(v)
		}
		s.values[v] = true
		for _, f := range forms(v) {
			s.idx.add(f)
		}
	}
}

// mayNameSecret reports, quickly, whether raw may hold a secret-named
// field: a part of every name runtime.SecretName accepts, in any case.
// Params without one (most calls) are not decoded; a plain byte search, as
// the request path is the host's per-call latency.
func mayNameSecret(raw []byte) bool {
	// Lower-cased a window at a time, the windows overlapping by the
	// longest part, so a large request costs no copy of its size.
	var buf [scanWindow + maxPart]byte
	for start := 0; start < len(raw); start += scanWindow {
		end := min(start+scanWindow+maxPart-1, len(raw))
		lower := buf[:end-start]
		for i, c := range raw[start:end] {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			lower[i] = c
		}
		for _, w := range nameParts {
			if bytes.Contains(lower, w) {
				return true
			}
		}
	}
	return false
}

// scanWindow is how much of a request mayNameSecret lower-cases at once;
// maxPart is the longest of nameParts.
const (
	scanWindow = 32 << 10
	maxPart    = len("credential")
)

// nameParts are the parts, in lower case, of the names runtime.SecretName
// accepts (TestNamePartsCoverSecretNames).
var nameParts = asBytes([]string{"pass", "pwd", "secret", "token", "key", "auth", "cookie", "credential", "signature", "session"})

// Values is how many secret values s holds.
func (s *Set) Values() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.values)
}

// Missed is how many values seen under secret names in requests s did not
// record, its bounds for them being reached; those are masked by pattern
// only.
func (s *Set) Missed() int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.missed
}

// Redact masks every known value in text (in each of its forms, and where
// a line break cuts it), then what Text finds. A nil Set knows no value.
func (s *Set) Redact(t string) string {
	var st lineState
	return maskText(s.maskKnown("", t), &st)
}

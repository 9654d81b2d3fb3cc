package redact

import (
	"bytes"
	"io"
	"strings"
	"unsafe"

	"github.com/gnosis/gnosis/runtime/keyprefix"
)

// Writer returns an io.Writer that masks secrets (s.Redact) in each JSON
// log line written to it before passing it on to w: in the content of every
// string literal, keys included, so that a line stays valid JSON whatever is
// masked. zerolog writes one whole line a Write.
func Writer(w io.Writer, s *Set) io.Writer { return &writer{w: w, s: s} }

type writer struct {
	w io.Writer
	s *Set
}

func (r *writer) Write(p []byte) (int, error) {
	if _, err := r.w.Write(RedactJSONLine(p, r.s)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// RedactJSONLine masks secrets (s.Redact) inside each string literal of the
// JSON text line, as escaped there; what lies outside strings is kept as it
// is. Text that is not JSON is masked as a whole.
func RedactJSONLine(line []byte, s *Set) []byte {
	if !mayHoldSecret(line) && !s.anyIn(line) {
		return line // most lines: nothing to mask, nothing to copy
	}
	var b strings.Builder
	b.Grow(len(line))
	start, in := 0, false // start: the first byte of the current string's content
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case !in && c == '"':
			b.Write(line[start : i+1])
			in, start = true, i+1
		case in && c == '\\':
			i++ // the escaped byte cannot end the string
		case in && c == '"':
			b.WriteString(s.Redact(string(line[start:i])))
			b.WriteByte('"')
			in, start = false, i+1
		}
	}
	if in { // an unterminated string: not JSON; mask the rest as text
		b.WriteString(s.Redact(string(line[start:])))
	} else {
		b.Write(line[start:])
	}
	return []byte(b.String())
}

// triggerWords are the words, in lower case, without one of which neither
// Text nor runtime.RedactText masks anything: the parts of secret names,
// the auth schemes, the start of a JSON web token; triggerPrefixes the
// case-sensitive starts of known keys (TestTriggerCoversEveryPattern holds
// both to the shared redaction table). Plain byte searches, since a
// regular expression over so many alternatives costs a millisecond a line.
var (
	triggerWords    = asBytes([]string{"pass", "pwd", "secret", "token", "key", "auth", "cookie", "credential", "signature", "session", "bearer", "basic", "digest", "eyj"})
	triggerPrefixes = asBytes(keyprefix.All)
)

func asBytes(words []string) [][]byte {
	out := make([][]byte, len(words))
	for i, w := range words {
		out[i] = []byte(w)
	}
	return out
}

// mayHoldSecret reports whether Text could mask anything in b.
func mayHoldSecret(b []byte) bool {
	for _, p := range triggerPrefixes {
		if bytes.Contains(b, p) {
			return true
		}
	}
	lower := bytes.ToLower(b)
	for _, w := range triggerWords {
		if bytes.Contains(lower, w) {
			return true
		}
	}
	return false
}

// anyIn reports whether b holds one of the known values.
func (s *Set) anyIn(b []byte) bool {
	if s == nil {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, v := range s.sorted {
		if bytes.Contains(b, unsafeBytes(v)) {
			return true
		}
	}
	return false
}

// unsafeBytes views s as bytes, read only, without copying it.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

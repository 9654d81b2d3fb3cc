package redact

import (
	"bytes"
	"io"

	"github.com/gnosis/gnosis/runtime/keyprefix"
)

// Writer returns an io.Writer that masks secrets in each JSON log line
// written to it (Lines) before passing it on to w. zerolog writes one whole
// line a Write.
func Writer(w io.Writer, s *Set) io.Writer { return &writer{w: w, lines: NewLines(s)} }

type writer struct {
	w     io.Writer
	lines *Lines
}

func (r *writer) Write(p []byte) (int, error) {
	if _, err := r.w.Write(r.lines.Redact(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// triggerWords are the words, in lower case, without one of which Text
// masks nothing in a line: the parts of secret names, the auth schemes,
// the start of a JSON web token, the markers of private keys;
// triggerPrefixes the case-sensitive starts of known keys
// (TestTriggerCoversEveryPattern holds both to the shared redaction table
// and Text's cases). Plain byte searches, since a regular expression over
// so many alternatives costs a millisecond a line.
var (
	triggerWords    = asBytes([]string{"pass", "pwd", "secret", "token", "key", "auth", "cookie", "credential", "signature", "session", "bearer", "basic", "digest", "eyj", "private-lines", "b3blbnnzac1rzxktdje"})
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

// anyIn reports whether a known form may begin somewhere in b: a quick
// no for most lines, however many values are known.
func (s *Set) anyIn(b []byte) bool {
	if s == nil {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.idx.byHead == nil {
		return false
	}
	t := unsafeString(b)
	for i := 0; i+minValue <= len(t); i++ {
		if s.idx.mayStart(t, i) && len(s.idx.byHead[key4(t, i)]) > 0 {
			return true
		}
	}
	return false
}

package redact

import (
	"io"
	"strings"
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

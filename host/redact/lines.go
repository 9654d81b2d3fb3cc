package redact

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Lines masks secrets in JSON log lines (zerolog's), one after another: in
// the content of every string literal, keys included, decoded, masked
// (Set.Redact) and encoded again, so that a line stays JSON whatever is
// masked; a line that is not JSON is masked as text. The lines of a
// provider's stderr ("stream":"stderr", one log line for each line the
// provider wrote) are masked as one text, provider by provider: a known
// value cut by a line break, the line after a "password:" prompt and a
// private key's body are masked across log lines as within one text.
// Safe for concurrent use.
type Lines struct {
	set     *Set
	mu      sync.Mutex
	streams map[string]*stream // by provider
}

// stream is what the last stderr line of a provider says about the next.
type stream struct {
	lineState
	tail string // the end of the last line, unmasked, when it ends with the beginning of a known value
}

func (st *stream) zero() bool { return !st.prompt && !st.keyBlock && st.tail == "" }

// maxStreams bounds the providers whose stderr Lines follows at once.
const maxStreams = 64

// NewLines returns Lines masking with s (nil: patterns only).
func NewLines(s *Set) *Lines { return &Lines{set: s, streams: map[string]*stream{}} }

// Redact returns line with its secrets masked; line itself when there is
// nothing to mask (most lines, which are then not copied).
func (l *Lines) Redact(line []byte) []byte {
	maybeStderr := bytes.Contains(line, stderrField)
	if !maybeStderr && l.quiet(line) {
		return line
	}
	lits, ok := literals(line)
	if !ok {
		return []byte(l.set.Redact(string(line)))
	}
	msg, provider, stderr := fields(line, lits)
	var st *stream
	if stderr && msg >= 0 {
		l.mu.Lock()
		defer l.mu.Unlock()
		st = l.stream(provider)
	}
	if (st == nil || st.zero()) && l.quiet(line) {
		if st != nil {
			st.tail = l.set.tailFor(decode(line, lits[msg]))
		}
		return line
	}
	var b bytes.Buffer
	b.Grow(len(line))
	last := 0
	for i, lit := range lits {
		b.Write(line[last:lit.a])
		text := decode(line, lit)
		var masked string
		if i == msg && st != nil {
			masked = maskText(l.set.maskKnown(st.tail, text), &st.lineState)
			st.tail = l.set.tailFor(text)
		} else {
			masked = l.set.Redact(text)
		}
		if masked == text {
			b.Write(line[lit.a:lit.b])
		} else {
			b.Write(encode(masked))
		}
		last = lit.b
	}
	b.Write(line[last:])
	return b.Bytes()
}

// stderrField marks the log lines of a provider's stderr.
var stderrField = []byte(`"stream":"stderr"`)

// quiet reports whether line holds nothing to mask on its own: no word a
// pattern needs, no known value, no line break within a string.
func (l *Lines) quiet(line []byte) bool {
	return !mayHoldSecret(line) && !l.set.anyIn(line) && !bytes.Contains(line, []byte(`\n`))
}

// stream is the state of provider's stderr, made when first needed.
func (l *Lines) stream(provider string) *stream {
	st, ok := l.streams[provider]
	if !ok {
		if len(l.streams) >= maxStreams {
			for k := range l.streams { // forget one: its next line starts afresh
				delete(l.streams, k)
				break
			}
		}
		st = &stream{}
		l.streams[provider] = st
	}
	return st
}

// literal is one string literal of a JSON line: its content line[a:b],
// between the quotes, whether it is an object's key, and how deep it is
// (1: in the line's own object).
type literal struct {
	a, b  int
	key   bool
	depth int
}

// literals finds the string literals of line; false when a string does not
// end (the line is not JSON).
func literals(line []byte) ([]literal, bool) {
	out := make([]literal, 0, 16) // a log line's fields, most often

	depth := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' {
					j++
				}
			}
			if j >= len(line) {
				return nil, false
			}
			k := j + 1
			for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
				k++
			}
			out = append(out, literal{a: i + 1, b: j, key: k < len(line) && line[k] == ':', depth: depth})
			i = j
		}
	}
	return out, true
}

// fields finds, among the line's own fields, the message's literal (-1 if
// none), the provider's name, and whether the line is one of a provider's
// stderr ("stream":"stderr").
func fields(line []byte, lits []literal) (msg int, provider string, stderr bool) {
	msg = -1
	for i := 0; i+1 < len(lits); i++ {
		k, v := lits[i], lits[i+1]
		if !k.key || k.depth != 1 || v.key || v.depth != 1 || strings.TrimSpace(string(line[k.b+1:v.a-1])) != ":" {
			continue
		}
		switch string(line[k.a:k.b]) {
		case "message":
			msg = i + 1
		case "provider":
			provider = decode(line, v)
		case "stream":
			stderr = string(line[v.a:v.b]) == "stderr"
		}
	}
	return msg, provider, stderr
}

// decode is a literal's text: its content with JSON's escapes undone
// (an escape that is not JSON's is kept as written).
func decode(line []byte, lit literal) string {
	content := line[lit.a:lit.b]
	i := bytes.IndexByte(content, '\\')
	if i < 0 {
		return string(content)
	}
	b := make([]byte, 0, len(content))
	for ; i >= 0; i = bytes.IndexByte(content, '\\') {
		b = append(b, content[:i]...)
		if i+1 == len(content) {
			content = content[i:]
			break
		}
		n := 2
		switch c := content[i+1]; c {
		case '"', '\\', '/':
			b = append(b, c)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, size := unicodeEscape(content[i:])
			if size == 0 {
				b = append(b, content[i:i+2]...)
				break
			}
			b, n = utf8.AppendRune(b, r), size
		default:
			b = append(b, content[i:i+2]...)
		}
		content = content[i+n:]
	}
	return string(append(b, content...))
}

// unicodeEscape decodes the \uXXXX escape at the start of b, a surrogate
// pair as one rune; size 0 when b does not start with one.
func unicodeEscape(b []byte) (r rune, size int) {
	hex := func(b []byte) (rune, bool) {
		if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex(b)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex(b[6:]); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

// encode is s as the content of a JSON string literal (no HTML escaping:
// logs are read by people).
func encode(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return out[1 : len(out)-1]
}

// unsafeString views b as a string, read only, without copying it.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

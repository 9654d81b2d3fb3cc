package rawjson

import "bytes"

// Members picks the values of chosen top-level members out of a JSON object
// fed to it in pieces (Write), holding only those values (each up to Max+1
// bytes: a longer one is cut, and its length tells the caller it was too
// long) whatever the object's size. It is for messages too large to keep,
// that must still be answered: a request frame refused for its size, a
// server's line past the largest one read. It follows JSON's structure
// (strings, escapes, nesting) without validating it: a malformed object may
// still yield values. A repeated key keeps the last, as encoding/json does.
//
// Set Keys and Max before the first Write.
type Members struct {
	// Keys are the top-level keys whose values are kept, as decoded keys
	// (escapes in the object's keys are undone before comparing).
	Keys []string
	// Max bounds each kept value's text.
	Max int

	depth   int
	inStr   bool
	esc     bool
	state   memberState
	key     []byte // raw text of the current top-level key, up to maxKey bytes
	keyLong bool
	capture int    // 1 + index in Keys of the value being kept, 0 when none
	val     []byte // the kept value so far
	vals    [][]byte
	bad     bool // not an object
	done    bool // the object closed
}

type memberState uint8

const (
	wantKey   memberState = iota // before a key (or the object's end)
	inKey                        // inside a key's quotes
	wantColon                    // after a key
	inValue                      // from the colon to the member's end
)

// maxKey bounds the key text kept: enough for short keys with every letter
// escapes (\u0069\u0064 is "id").
const maxKey = 64

// Write scans p; it never fails.
func (m *Members) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i++ {
		if m.inStr && !m.esc && !m.keeping() {
			// Inside a string nothing is kept: jump to its next quote or
			// backslash (large values are mostly long strings).
			rest := p[i:]
			j := bytes.IndexByte(rest, '"')
			if j < 0 {
				j = len(rest)
			}
			if k := bytes.IndexByte(rest[:j], '\\'); k >= 0 {
				j = k
			}
			if i += j; i == len(p) {
				break
			}
		}
		m.scan(p[i])
	}
	return len(p), nil
}

// Complete reports whether a whole object was scanned.
func (m *Members) Complete() bool { return !m.bad && m.done }

// Value returns the raw text of key's value (cut at Max+1 bytes) and
// whether the object had that member, complete or not.
func (m *Members) Value(key string) ([]byte, bool) {
	for i, k := range m.Keys {
		if k == key && i < len(m.vals) && m.vals[i] != nil {
			return m.vals[i], true
		}
	}
	return nil, false
}

// keeping reports whether the scanner is inside text it keeps: a top-level
// key or a kept value.
func (m *Members) keeping() bool {
	return m.capture > 0 || (m.depth == 1 && m.state == inKey)
}

func (m *Members) scan(c byte) {
	if m.bad {
		return
	}
	if m.inStr {
		switch {
		case m.esc:
			m.esc = false
		case c == '\\':
			m.esc = true
		case c == '"':
			m.inStr = false
			if m.depth == 1 && m.state == inKey {
				m.state = wantColon
				return
			}
		}
		m.keep(c)
		return
	}
	if m.depth == 0 {
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == '{' && !m.done:
			m.depth, m.state = 1, wantKey
		default:
			m.bad = true
		}
		return
	}
	switch c {
	case ' ', '\t', '\n', '\r':
		return // never part of a value's text outside strings
	case '"':
		m.inStr = true
		if m.depth == 1 && m.state == wantKey {
			m.state, m.key, m.keyLong = inKey, m.key[:0], false
			return
		}
	case ':':
		if m.depth == 1 && m.state == wantColon {
			m.state, m.capture, m.val = inValue, m.kept(), m.val[:0]
			return
		}
	case '{', '[':
		m.depth++
	case '}', ']':
		if m.depth == 1 {
			m.endMember()
			m.depth, m.done = 0, true
			return
		}
		m.depth--
	case ',':
		if m.depth == 1 {
			m.endMember()
			m.state = wantKey
			return
		}
	}
	m.keep(c)
}

// keep records c as part of the current key or kept value.
func (m *Members) keep(c byte) {
	switch {
	case m.depth == 1 && m.state == inKey:
		if len(m.key) < maxKey {
			m.key = append(m.key, c)
		} else {
			m.keyLong = true
		}
	case m.capture > 0 && len(m.val) <= m.Max:
		m.val = append(m.val, c)
	}
}

// kept is 1 + the index in Keys of the key just read, 0 if not kept.
func (m *Members) kept() int {
	if m.keyLong {
		return 0
	}
	k, ok := Key(m.key)
	if !ok {
		return 0
	}
	for i, want := range m.Keys {
		if k == want {
			return i + 1
		}
	}
	return 0
}

func (m *Members) endMember() {
	if m.capture == 0 {
		return
	}
	if len(m.vals) < len(m.Keys) {
		m.vals = append(m.vals, make([][]byte, len(m.Keys)-len(m.vals))...)
	}
	m.vals[m.capture-1] = append(make([]byte, 0, len(m.val)), m.val...)
	m.capture = 0
}

package framing

import "unicode/utf8"

// Damage says what keeps a frame's body from being a request a host can
// read, and where, when RequestID finds it.
type Damage struct {
	// InvalidUTF8 is the offset of the first byte that is not UTF-8, -1
	// when there is none.
	InvalidUTF8 int
	// TooDeep is the offset where the nesting passed the scan's bound, -1
	// when it does not.
	TooDeep int
}

// RequestID finds the "id" of a request whose body cannot be decoded (not
// UTF-8, nested too deep, or otherwise not JSON), so that its error can be
// answered under the caller's own id rather than null: the raw text of the
// last top-level "id" member whose value is a string or a number, nil when
// there is none. It reads the body once, left to right, in constant
// memory and without recursion, whatever the body holds: strings are
// skipped by their quotes and escapes, and nesting is only counted (the
// count is compared with maxDepth, to say where it passed it).
func RequestID(body []byte, maxDepth int) (id []byte, damage Damage) {
	damage = Damage{InvalidUTF8: -1, TooDeep: -1}
	if !utf8.Valid(body) {
		damage.InvalidUTF8 = firstInvalid(body)
	}
	s := idScan{b: body}
	s.ws()
	if !s.byte('{') {
		return nil, damage
	}
	depth := 1
	for {
		// At depth 1, after "{" or ",": a member.
		s.ws()
		if s.byte('}') {
			break
		}
		keyStart := s.i
		if !s.str() {
			break
		}
		key := body[keyStart+1 : s.i-1]
		s.ws()
		if !s.byte(':') {
			break
		}
		s.ws()
		valStart := s.i
		if isID(key) {
			if s.i < len(body) && body[s.i] == '"' {
				if !s.str() {
					break
				}
				id = body[valStart:s.i]
			} else if s.num() {
				id = body[valStart:s.i]
			}
		}
		if s.i == valStart {
			// Any other value: skip it, counting its nesting.
			if !s.skip(depth, maxDepth, &damage) {
				break
			}
		}
		s.ws()
		if !s.byte(',') {
			break
		}
	}
	return id, damage
}

// isID reports whether a member's raw key (between its quotes) is "id",
// written plainly or with escapes ("\u0069d").
func isID(key []byte) bool {
	if len(key) > 16 {
		return false
	}
	var got [2]rune
	n := 0
	for i := 0; i < len(key); n++ {
		if n == len(got) {
			return false
		}
		c := key[i]
		switch {
		case c != '\\':
			got[n] = rune(c)
			i++
		case i+1 >= len(key):
			return false
		case key[i+1] != 'u':
			got[n] = rune(key[i+1])
			i += 2
		default:
			if i+6 > len(key) {
				return false
			}
			v, ok := hex4(key[i+2 : i+6])
			if !ok {
				return false
			}
			got[n] = v
			i += 6
		}
	}
	return n == 2 && got == [2]rune{'i', 'd'}
}

func hex4(b []byte) (rune, bool) {
	var v rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + rune(c-'0')
		case c >= 'a' && c <= 'f':
			v = v*16 + rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v*16 + rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, w := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && w == 1 {
			return i
		}
		i += w
	}
	return -1
}

// idScan reads a body leniently, one byte at a time.
type idScan struct {
	b []byte
	i int
}

func (s *idScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *idScan) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str passes a string at its opening quote: false when there is none or
// it does not end.
func (s *idScan) str() bool {
	if !s.byte('"') {
		return false
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			s.i++
			return true
		case '\\':
			s.i += 2
		default:
			s.i++
		}
	}
	return false
}

// num passes a JSON number; false (and no move) when there is none.
func (s *idScan) num() bool {
	i := s.i
	if i < len(s.b) && s.b[i] == '-' {
		i++
	}
	d := i
	for i < len(s.b) && (s.b[i] >= '0' && s.b[i] <= '9' || s.b[i] == '.' || s.b[i] == 'e' || s.b[i] == 'E' || s.b[i] == '+' || s.b[i] == '-') {
		i++
	}
	if i == d || s.b[d] < '0' || s.b[d] > '9' {
		return false
	}
	s.i = i
	return true
}

// skip passes one value of any kind in an object at depth, counting the
// nesting of its objects and arrays; it notes in damage where that first
// passes maxDepth. False when the body ends first.
func (s *idScan) skip(depth, maxDepth int, damage *Damage) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		return s.str()
	case '{', '[':
	default:
		// A number, a literal, or something that is not JSON: up to the
		// next delimiter.
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return true
			}
			s.i++
		}
		return false
	}
	base := depth
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			if !s.str() {
				return false
			}
			continue
		case '{', '[':
			depth++
			if depth > maxDepth && damage.TooDeep < 0 {
				damage.TooDeep = s.i
			}
		case '}', ']':
			depth--
			if depth == base {
				s.i++
				return true
			}
		}
		s.i++
	}
	return false
}

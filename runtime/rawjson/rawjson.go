// Package rawjson validates JSON and splits an object into its top-level
// members in one pass, without decoding: the members come back as sub-slices
// of the input. Both ends of the host carry multi-megabyte JSON (tool results
// from MCP servers, request frames from the browser) that only needs routing,
// and decoding it into values just to find "id" or "method" would copy every
// byte. It accepts exactly what encoding/json.Valid accepts (fuzzed).
package rawjson

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting Valid and Object accept, encoding/json's
// own limit.
const MaxDepth = 10000

const maxDepth = MaxDepth

// Valid reports whether b is one JSON value, like json.Valid.
func Valid(b []byte) bool {
	s := scanner{b: b}
	s.ws()
	if !s.value(0) {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

// Object reports whether b is exactly one JSON object (whitespace around it
// allowed), calling member, if not nil, for each top-level member in order
// with the key's raw text between its quotes (escapes not undone: see Key)
// and the value's raw JSON. Both alias b. A repeated key is reported each
// time; keeping the last, as encoding/json does, is the caller's choice.
// member may be called before a later syntax error makes Object return false.
func Object(b []byte, member func(key, val []byte)) bool {
	s := scanner{b: b}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	if !s.object(0, member) {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

// Key returns a member key as Object reported it, decoded as encoding/json
// decodes it: escapes undone, invalid UTF-8 replaced by U+FFFD.
func Key(raw []byte) (string, bool) {
	if utf8.Valid(raw) && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), true
	}
	var k string
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	if json.Unmarshal(q, &k) != nil {
		return "", false
	}
	return k, true
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) value(depth int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.str()
	case c == '{':
		return s.object(depth, nil)
	case c == '[':
		return s.array(depth)
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.num()
	}
	return false
}

// object scans {...}; member, if not nil, gets each key's raw content
// (between the quotes) and the raw value.
func (s *scanner) object(depth int, member func(key, val []byte)) bool {
	if depth++; depth > maxDepth {
		return false
	}
	s.i++ // '{'
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		k0 := s.i
		if !s.str() {
			return false
		}
		key := s.b[k0+1 : s.i-1]
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		v0 := s.i
		if !s.value(depth) {
			return false
		}
		if member != nil {
			member(key, s.b[v0:s.i])
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *scanner) array(depth int) bool {
	if depth++; depth > maxDepth {
		return false
	}
	s.i++ // '['
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		if !s.value(depth) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// Eight bytes at a time, as one word: each byte 0x01, and each 0x80.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plain8 reports whether none of the eight bytes of v needs a look in a
// string: no '"', no '\\', no control character. (x-ones)&^x&highs is
// nonzero exactly when a byte of x is zero; subtracting n instead of one
// finds a byte below n.
func plain8(v uint64) bool {
	q := v ^ ('"' * ones)
	bs := v ^ ('\\' * ones)
	return ((q-ones)&^q|(bs-ones)&^bs|(v-0x20*ones)&^v)&highs == 0
}

// str scans a string starting at its opening quote.
func (s *scanner) str() bool {
	b := s.b
	i := s.i + 1
	for i < len(b) {
		// Most of a long string is plain text: skip it a word at a time.
		for i+8 <= len(b) && plain8(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			s.i = i + 1
			return true
		case c == '\\':
			if i+1 >= len(b) {
				return false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return false
				}
				i += 6
			default:
				return false
			}
		case c < 0x20:
			return false
		default:
			i++
		}
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func (s *scanner) lit(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// num scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) num() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	s.i = i
	return true
}

package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/gnosis/gnosis/runtime/rawjson"
)

// MaxDepth bounds the nesting of a value Decode reads (encoding/json's
// own bound): past it the value is refused with DepthError.
const MaxDepth = 10_000

// DepthError is a value nested deeper than MaxDepth.
type DepthError struct {
	// Offset is the byte where the nesting passed the bound.
	Offset int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("nested deeper than %d levels (at byte %d)", MaxDepth, e.Offset)
}

// SyntaxError is text that is not one JSON value, and where.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("not JSON: %s at byte %d", e.Msg, e.Offset) }

// Decode reads one JSON value as the validator sees it: objects as
// map[string]any (the last of repeated names wins), arrays as []any,
// numbers as json.Number holding their literal text (so 1e309 and 2^64
// stay exact and valid), strings, bools and nil. Anything after the value
// but white space is an error. Invalid UTF-8 and lone surrogate escapes in
// a string read as U+FFFD, as encoding/json reads them.
//
// It reads data in place: a number, and a string without escapes (or
// bytes beyond ASCII), is the very text of data, not a copy, so that the
// value of a 50 MB argument costs its structure, not its text twice.
// data must therefore not change while the value is in use (the host's
// requests and schemas never do).
func Decode(data []byte) (any, error) {
	d := decoder{b: data}
	if rawjson.Valid(data) {
		// Only then: the counts of text that is not JSON could ask for
		// far more room than its values would take.
		d.sizes = countMembers(data)
	}
	d.ws()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.ws()
	if d.i != len(d.b) {
		return nil, d.errorf("text after the value")
	}
	return v, nil
}

type decoder struct {
	b []byte
	i int
	// sizes holds the members of each object and array in the order
	// they open (countMembers), so each is allocated at its size once;
	// nil when data is not JSON (the decoder then reports where).
	sizes []int32
	next  int
}

// size is the member count of the object or array that opens next.
func (d *decoder) size() int {
	if d.next >= len(d.sizes) {
		return 0
	}
	n := d.sizes[d.next]
	d.next++
	return int(n)
}

// text is data[from:to] as a string that shares data's memory (see
// Decode).
func (d *decoder) text(from, to int) string {
	if from == to {
		return ""
	}
	return unsafe.String(&d.b[from], to-from)
}

func (d *decoder) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: d.i, Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if d.i >= len(d.b) {
		return nil, d.errorf("unexpected end")
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.lit("true")
	case c == 'f':
		return false, d.lit("false")
	case c == 'n':
		return nil, d.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.num()
	}
	return nil, d.errorf("unexpected %q", d.b[d.i])
}

func (d *decoder) lit(s string) error {
	if len(d.b)-d.i < len(s) || string(d.b[d.i:d.i+len(s)]) != s {
		return d.errorf("invalid literal")
	}
	d.i += len(s)
	return nil
}

func (d *decoder) object(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, &DepthError{Offset: d.i}
	}
	d.i++ // '{'
	m := make(map[string]any, d.size())
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, d.errorf("want a member name")
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.ws()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, d.errorf(`want ":"`)
		}
		d.i++
		d.ws()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		d.ws()
		if d.i >= len(d.b) {
			return nil, d.errorf("unexpected end")
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.ws()
		case '}':
			d.i++
			return m, nil
		default:
			return nil, d.errorf(`want "," or "}"`)
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, &DepthError{Offset: d.i}
	}
	d.i++ // '['
	a := make([]any, 0, d.size())
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.ws()
		if d.i >= len(d.b) {
			return nil, d.errorf("unexpected end")
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.ws()
		case ']':
			d.i++
			return a, nil
		default:
			return nil, d.errorf(`want "," or "]"`)
		}
	}
}

func (d *decoder) num() (any, error) {
	start := d.i
	if d.b[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		s := d.i
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
		}
		return d.i - s
	}
	intStart := d.i
	n := digits()
	if n == 0 || n > 1 && d.b[intStart] == '0' {
		return nil, d.errorf("invalid number")
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, d.errorf("invalid number")
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, d.errorf("invalid number")
		}
	}
	return json.Number(d.text(start, d.i)), nil
}

// str reads a string at its opening quote.
func (d *decoder) str() (string, error) {
	d.i++ // '"'
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.text(start, d.i)
			d.i++
			return s, nil
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return "", d.errorf("control character in a string")
		case c >= 0x80:
			return d.escaped(start)
		}
		d.i++
	}
	return "", d.errorf("unterminated string")
}

// escaped reads the rest of a string that has escapes or bytes beyond
// ASCII, from start.
func (d *decoder) escaped(start int) (string, error) {
	out := make([]byte, 0, d.i-start+16)
	out = append(out, d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), nil
		case c < 0x20:
			return "", d.errorf("control character in a string")
		case c >= 0x80:
			r, w := utf8.DecodeRune(d.b[d.i:])
			out = utf8.AppendRune(out, r) // an invalid byte reads as U+FFFD
			d.i += w
			continue
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		d.i++
		if d.i >= len(d.b) {
			break
		}
		e := d.b[d.i]
		d.i++
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", d.errorf(`invalid \u escape`)
			}
			if utf16.IsSurrogate(r) {
				save := d.i
				if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
					d.i += 2
					if lo, ok := d.hex4(); ok {
						if p := utf16.DecodeRune(r, lo); p != utf8.RuneError {
							out = utf8.AppendRune(out, p)
							continue
						}
					}
				}
				d.i = save
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", d.errorf("invalid escape")
		}
	}
	return "", d.errorf("unterminated string")
}

func (d *decoder) hex4() (rune, bool) {
	if len(d.b)-d.i < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	d.i += 4
	return rune(v), true
}

// countMembers reads data once, without allocating for its values, and
// returns the member count of each object and array in the order they
// open, so that Decode allocates each at its size: a 5-million-item array
// then costs its items, not the copies of a growing slice. It returns nil
// when data is not well nested (Decode then finds the error), or when it
// opens more than a value can (past MaxDepth).
func countMembers(data []byte) []int32 {
	var sizes []int32
	var open []int32 // indexes into sizes of the containers open
	empty := true    // the innermost open container has no member yet
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if i >= len(data) {
				return nil
			}
			if len(open) > 0 && empty {
				sizes[open[len(open)-1]]++
				empty = false
			}
		case '{', '[':
			if len(open) > 0 && empty {
				sizes[open[len(open)-1]]++
				empty = false
			}
			if len(open) >= MaxDepth {
				return nil
			}
			open = append(open, int32(len(sizes)))
			sizes = append(sizes, 0)
			empty = true
		case '}', ']':
			if len(open) == 0 {
				return nil
			}
			open = open[:len(open)-1]
			empty = false
		case ',':
			if len(open) > 0 {
				sizes[open[len(open)-1]]++
				empty = false
			}
		case ' ', '\t', '\n', '\r', ':':
		default:
			if len(open) > 0 && empty {
				sizes[open[len(open)-1]]++
				empty = false
			}
		}
	}
	return sizes
}

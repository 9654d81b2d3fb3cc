package redact

import (
	"slices"
	"strings"
)

// index holds the forms of the known values for matching in text. A scan
// looks at each position of the text once, in constant time for a text
// without secrets, however many values are known.
type index struct {
	byHead map[uint32][]form    // by a form's first four bytes, longest first
	heads  [1 << 16 / 64]uint64 // a bit for the first two bytes of every form
	starts map[string]bool      // the first one, two and three bytes of every form
	maxLen int                  // the longest form
}

func (x *index) add(f form) {
	if x.byHead == nil {
		x.byHead, x.starts = map[uint32][]form{}, map[string]bool{}
	}
	k := key4(f.text, 0)
	list := append(x.byHead[k], f)
	slices.SortStableFunc(list, func(a, b form) int { return len(b.text) - len(a.text) })
	x.byHead[k] = list
	h := key2(f.text, 0)
	x.heads[h/64] |= 1 << (h % 64)
	for n := 1; n < minValue; n++ {
		x.starts[f.text[:n]] = true
	}
	x.maxLen = max(x.maxLen, len(f.text))
}

func key4(t string, i int) uint32 {
	return uint32(t[i]) | uint32(t[i+1])<<8 | uint32(t[i+2])<<16 | uint32(t[i+3])<<24
}

func key2(t string, i int) uint32 { return uint32(t[i]) | uint32(t[i+1])<<8 }

// mayStart reports whether a form may begin at t[i] (i+2 <= len(t)).
func (x *index) mayStart(t string, i int) bool {
	h := key2(t, i)
	return x.heads[h/64]&(1<<(h%64)) != 0
}

// span is the stretch t[a:b] to mask; token: it holds a base64 form.
type span struct {
	a, b  int
	token bool
}

// at returns where the longest form at t[i:] ends, also counting a form's
// first minValue or more bytes that run up to lineEnd (the end of t's line
// holding i: the value goes on after the line break); -1 when none does.
func (x *index) at(t string, i, lineEnd int) (end int, token bool) {
	end = -1
	for _, f := range x.byHead[key4(t, i)] {
		n := len(f.text)
		switch {
		case i+n <= len(t) && t[i:i+n] == f.text:
			if i+n > end {
				end, token = i+n, f.token
			}
		case lineEnd-i >= minValue && lineEnd-i < n && f.text[:lineEnd-i] == t[i:lineEnd]:
			if lineEnd > end {
				end, token = lineEnd, f.token
			}
		}
	}
	return end, token
}

// scan appends the spans of t that hold a known form: whole, or its
// beginning cut by the end of a line; token marks a base64 form's.
func (x *index) scan(t string, out []span) []span {
	lineEnd, next := -1, 0 // the end of the content of the line holding i; where the next line starts
	for i := 0; i+minValue <= len(t); i++ {
		if i >= next {
			j := strings.IndexByte(t[i:], '\n')
			if j < 0 {
				lineEnd, next = len(t), len(t)+1
			} else {
				lineEnd, next = i+j, i+j+1
				if lineEnd > i && t[lineEnd-1] == '\r' {
					lineEnd--
				}
			}
		}
		if !x.mayStart(t, i) {
			continue
		}
		if end, token := x.at(t, i, lineEnd); end >= 0 {
			out = append(out, span{i, end, token})
		}
	}
	return out
}

// spans are the stretches of t that hold a known value: scan's, and those
// of a value a line break cuts in two, found in t with its line breaks
// (and the indentation after them) taken out. A base64 form's stretch
// covers the run of base64 characters around it, within its lines.
func (x *index) spans(t string) []span {
	out := x.scan(t, nil)
	if strings.IndexByte(t, '\n') >= 0 {
		joined, pos := joinLines(t)
		for _, s := range x.scan(joined, nil) {
			if a, b := pos[s.a], pos[s.b-1]+1; b-a != s.b-s.a {
				out = append(out, span{a, b, s.token})
			}
		}
	}
	for i, s := range out {
		if s.token {
			for s.a > 0 && base64Char(t[s.a-1]) {
				s.a--
			}
			for s.b < len(t) && base64Char(t[s.b]) {
				s.b++
			}
			out[i] = s
		}
	}
	return out
}

// joinLines is t without its line breaks and the spaces and tabs that
// begin each next line, and for each of its bytes the position in t it
// came from.
func joinLines(t string) (string, []int) {
	var b strings.Builder
	b.Grow(len(t))
	pos := make([]int, 0, len(t))
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '\r' && i+1 < len(t) && t[i+1] == '\n':
		case c == '\n':
			for i+1 < len(t) && (t[i+1] == ' ' || t[i+1] == '\t') {
				i++
			}
		default:
			b.WriteByte(c)
			pos = append(pos, i)
		}
	}
	return b.String(), pos
}

// endsInForm reports whether t ends with the beginning of a known form,
// which may go on in the next line.
func (x *index) endsInForm(t string) bool {
	for n := 1; n < minValue && n <= len(t); n++ {
		if x.starts[t[len(t)-n:]] {
			return true
		}
	}
	for i := max(0, len(t)-x.maxLen+1); i+minValue <= len(t); i++ {
		if x.mayStart(t, i) {
			if end, _ := x.at(t, i, len(t)); end == len(t) {
				return true
			}
		}
	}
	return false
}

// maskKnown masks the known values in t, prev being the line before t in
// the same stream ("" for none): a value that began there and goes on in t
// is masked in t too.
func (s *Set) maskKnown(prev, t string) string {
	if s == nil {
		return t
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.idx.byHead == nil {
		return t
	}
	whole, off := t, 0
	if prev != "" {
		whole, off = prev+"\n"+t, len(prev)+1
	}
	var in []span
	for _, sp := range s.idx.spans(whole) {
		if sp.b > off {
			in = append(in, span{a: max(sp.a, off) - off, b: sp.b - off})
		}
	}
	return apply(t, in)
}

// apply replaces each stretch of t that spans cover, overlapping or
// touching ones together, by one Redacted.
func apply(t string, spans []span) string {
	if len(spans) == 0 {
		return t
	}
	slices.SortFunc(spans, func(x, y span) int { return x.a - y.a })
	var b strings.Builder
	last := 0
	for i := 0; i < len(spans); {
		a, end := spans[i].a, spans[i].b
		for i++; i < len(spans) && spans[i].a <= end; i++ {
			end = max(end, spans[i].b)
		}
		b.WriteString(t[last:a])
		b.WriteString(Redacted)
		last = end
	}
	b.WriteString(t[last:])
	return b.String()
}

// tailFor is what a stream keeps of line t for the next line: its end, up
// to the longest form, when it ends with the beginning of one.
func (s *Set) tailFor(t string) string {
	if s == nil {
		return ""
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.idx.byHead == nil || !s.idx.endsInForm(t) {
		return ""
	}
	return t[max(0, len(t)-min(s.idx.maxLen, maxTail)):]
}

// maxTail bounds what a stream keeps of a line for the next one.
const maxTail = 4 << 10

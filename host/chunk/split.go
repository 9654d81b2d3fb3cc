package chunk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// DefaultLimit is the largest frame Chrome accepts from a host (1 MiB).
const DefaultLimit = 1 << 20

// ErrInvalidUTF8 is returned for a reply that is not valid UTF-8: a JSON
// string cannot carry such bytes exactly, so the caller must repair them first.
var ErrInvalidUTF8 = errors.New("reply is not valid UTF-8")

// ErrLimitTooSmall is returned when the limit leaves no room for data after
// the chunk frame's own fields.
var ErrLimitTooSmall = errors.New("frame limit too small for a chunk")

// escLen[b] is how many bytes b takes inside a JSON string as we escape it.
// HTML characters are not escaped: the reader is a JSON parser, not a page.
var escLen = func() (t [256]uint8) {
	for i := range t {
		t[i] = 1
	}
	for i := 0; i < 0x20; i++ {
		t[i] = 6 // \u00XX
	}
	for _, c := range []byte{'\b', '\f', '\n', '\r', '\t', '"', '\\'} {
		t[c] = 2
	}
	return t
}()

// Each calls emit with each chunk frame of reply, in order. id is the reply's
// id as JSON text (a number or a string). The frame slice passed to emit is
// reused for the next frame: emit must write or copy it before returning.
// Every frame is at most limit bytes.
func Each(id, reply []byte, limit int, emit func(frame []byte) error) error {
	cuts, digits, err := plan(id, reply, limit)
	if err != nil {
		return err
	}
	n := len(cuts) - 1
	buf := make([]byte, 0, limit)
	for i := 0; i < n; i++ {
		buf = append(buf[:0], `{"id":`...)
		buf = append(buf, id...)
		buf = append(buf, `,"chunk":`...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, `,"chunks":`...)
		buf = strconv.AppendInt(buf, int64(n), 10)
		buf = append(buf, `,"data":"`...)
		buf = appendEscaped(buf, reply[cuts[i]:cuts[i+1]])
		buf = append(buf, `"}`...)
		if len(buf) > limit {
			// plan guarantees this cannot happen; refuse rather than break the port.
			return fmt.Errorf("chunk %d of %d is %d bytes, limit %d (digits %d)", i, n, len(buf), limit, digits)
		}
		if err := emit(buf); err != nil {
			return err
		}
	}
	return nil
}

// Split returns the chunk frames of reply as separate slices (see Each).
func Split(id, reply []byte, limit int) ([][]byte, error) {
	var frames [][]byte
	err := Each(id, reply, limit, func(f []byte) error {
		frames = append(frames, append([]byte(nil), f...))
		return nil
	})
	return frames, err
}

// overhead is the size of a chunk frame without its data, when chunk and
// chunks are written with at most digits digits.
func overhead(id []byte, digits int) int {
	return len(`{"id":,"chunk":,"chunks":,"data":""}`) + len(id) + 2*digits
}

// plan returns the cut offsets (first 0, last len(reply)) of the pieces and
// the digit width the headers were sized for. It starts from the digit width
// the raw size implies (escaping only adds pieces), so one pass is the rule.
func plan(id, reply []byte, limit int) ([]int, int, error) {
	for digits := len(strconv.Itoa(len(reply)/max(limit, 1) + 1)); digits <= 10; digits++ {
		room := limit - overhead(id, digits)
		if room < 6 { // one escaped rune must always fit
			return nil, 0, fmt.Errorf("%w: limit %d, id %d bytes", ErrLimitTooSmall, limit, len(id))
		}
		cuts, ok := cut(reply, room)
		if !ok {
			return nil, 0, ErrInvalidUTF8
		}
		if len(strconv.Itoa(len(cuts)-1)) <= digits {
			return cuts, digits, nil
		}
	}
	return nil, 0, fmt.Errorf("%w: too many chunks", ErrLimitTooSmall)
}

// cut splits reply greedily, rune by rune, into pieces whose escaped size is
// at most room, and checks on the way that reply is valid UTF-8 (ok false
// otherwise). room must be at least 6, the largest escaped rune.
func cut(reply []byte, room int) (cuts []int, ok bool) {
	cuts = []int{0}
	size := 0
	for i := 0; i < len(reply); {
		// Eight plain bytes at once; when they are not all plain, take
		// the next eight (at least) one rune at a time.
		end := i + 1
		if i+8 <= len(reply) && size+8 <= room {
			if plain8(binary.LittleEndian.Uint64(reply[i:])) {
				size += 8
				i += 8
				continue
			}
			end = i + 8
		}
		for i < end && i < len(reply) {
			b := reply[i]
			w, c := 1, int(escLen[b])
			if b >= utf8.RuneSelf {
				r, n := utf8.DecodeRune(reply[i:])
				if r == utf8.RuneError && n == 1 {
					return nil, false
				}
				w, c = n, n
			}
			if size+c > room {
				cuts = append(cuts, i)
				size = 0
			}
			size += c
			i += w
		}
	}
	return append(cuts, len(reply)), true
}

// Word tricks: test eight bytes at once. ones has 0x01 in every byte, highs
// 0x80; hasLess(x, n) is non-zero iff some byte of x is below n (n <= 128).
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

func hasLess(x, n uint64) uint64 { return (x - ones*n) &^ x & highs }
func hasByte(x, b uint64) uint64 { return hasLess(x^(ones*b), 1) }

// noEscape8 reports whether none of the eight bytes needs escaping in a JSON
// string (no control character, '"' or '\\'); bytes >= 0x80 pass.
func noEscape8(x uint64) bool {
	return hasLess(x, 0x20)|hasByte(x, '"')|hasByte(x, '\\') == 0
}

// plain8 reports whether the eight bytes are ASCII needing no escape.
func plain8(x uint64) bool { return x&highs == 0 && noEscape8(x) }

const hex = "0123456789abcdef"

// appendEscaped appends s as the inside of a JSON string.
func appendEscaped(dst, s []byte) []byte {
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && noEscape8(binary.LittleEndian.Uint64(s[i:])) {
			i += 8
			continue
		}
		// Some byte of the next eight needs escaping: find it.
		end := min(i+8, len(s))
		for i < end && escLen[s[i]] == 1 {
			i++
		}
		if i == end {
			continue
		}
		b := s[i]
		dst = append(dst, s[start:i]...)
		switch b {
		case '"', '\\':
			dst = append(dst, '\\', b)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
		}
		i++
		start = i
	}
	return append(dst, s[start:]...)
}

package chunk

import (
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
	if !utf8.Valid(reply) {
		return ErrInvalidUTF8
	}
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
// the digit width the headers were sized for.
func plan(id, reply []byte, limit int) ([]int, int, error) {
	for digits := 1; digits <= 10; digits++ {
		room := limit - overhead(id, digits)
		if room < 6 { // one escaped rune must always fit
			return nil, 0, fmt.Errorf("%w: limit %d, id %d bytes", ErrLimitTooSmall, limit, len(id))
		}
		cuts := cut(reply, room)
		if len(strconv.Itoa(len(cuts)-1)) <= digits {
			return cuts, digits, nil
		}
	}
	return nil, 0, fmt.Errorf("%w: too many chunks", ErrLimitTooSmall)
}

// cut splits reply greedily into pieces whose escaped size is at most room,
// only at rune starts.
func cut(reply []byte, room int) []int {
	cuts := []int{0}
	start, size := 0, 0
	for i := 0; i < len(reply); i++ {
		c := int(escLen[reply[i]])
		if size+c <= room {
			size += c
			continue
		}
		// Byte i does not fit: end the piece at the start of i's rune.
		j := i
		for j > start && !utf8.RuneStart(reply[j]) {
			j--
		}
		cuts = append(cuts, j)
		start, size = j, 0
		for k := j; k <= i; k++ {
			size += int(escLen[reply[k]])
		}
	}
	if len(reply) > 0 || len(cuts) == 1 {
		cuts = append(cuts, len(reply))
	}
	return cuts
}

const hex = "0123456789abcdef"

// appendEscaped appends s as the inside of a JSON string.
func appendEscaped(dst, s []byte) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		b := s[i]
		if escLen[b] == 1 {
			continue
		}
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
		start = i + 1
	}
	return append(dst, s[start:]...)
}

package chunk

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSplit: for any text and limit, either Split refuses with a documented
// error or every frame fits, is JSON, and the pieces rejoin to the text.
func FuzzSplit(f *testing.F) {
	f.Add("hello", 100)
	f.Add(strings.Repeat("a\"\\\x00é😀", 50), 64)
	f.Add(strings.Repeat("abcdefgh", 100)+"\x1f", 70)
	f.Add("\xff", 100)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		limit = 40 + abs(limit)%4000
		frames, err := Split([]byte(`"k"`), []byte(text), limit)
		if err != nil {
			if errors.Is(err, ErrInvalidUTF8) && !utf8.ValidString(text) || errors.Is(err, ErrLimitTooSmall) {
				return
			}
			t.Fatalf("Split(%q, %d): %v", text, limit, err)
		}
		var joined strings.Builder
		for i, fr := range frames {
			if len(fr) > limit {
				t.Fatalf("frame %d: %d bytes, limit %d", i, len(fr), limit)
			}
			var c struct {
				Chunk, Chunks int
				Data          string
			}
			if err := json.Unmarshal(fr, &c); err != nil || c.Chunk != i || c.Chunks != len(frames) {
				t.Fatalf("frame %d: %v %s", i, err, fr)
			}
			joined.WriteString(c.Data)
		}
		if joined.String() != text {
			t.Fatalf("rejoined text differs")
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

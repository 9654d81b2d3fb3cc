package mcpprovider

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestCleanLineMakesALineFitToShow(t *testing.T) {
	long := strings.Repeat("é", tailLineSize) // 2 bytes each: cut mid-way
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain text is kept", "munim: fatal: cannot open display", "munim: fatal: cannot open display"},
		{"invalid UTF-8 becomes U+FFFD", "bad \xff\xfe byte", "bad \uFFFD byte"},
		{"terminal escapes lose their control character", "\x1b[31mred\x1b[0m", "[31mred[0m"},
		{"tabs become spaces and the ends are trimmed", "\tcol1\tcol2  ", "col1 col2"},
		{"a blank line stays blank", " \t ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cleanLine([]byte(tc.in)); got != tc.want {
				t.Errorf("cleanLine(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	t.Run("a long line is cut at a character boundary", func(t *testing.T) {
		got := cleanLine([]byte(long))
		if len(got) > tailLineSize || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
			t.Errorf("cleanLine(long) = %d bytes, valid %v, %q at the end", len(got), utf8.ValidString(got), got[len(got)-8:])
		}
	})
}

func TestStderrTailKeepsTheLastLinesWithinItsBounds(t *testing.T) {
	t.Run("at most tailLines lines, the last ones", func(t *testing.T) {
		tail := newStderrTail()
		for i := range 100 {
			tail.add([]byte(fmt.Sprintf("line %d", i)))
		}
		var want []string
		for i := 100 - tailLines; i < 100; i++ {
			want = append(want, fmt.Sprintf("line %d", i))
		}
		if diff := cmp.Diff(strings.Join(want, "\n"), tail.String()); diff != "" {
			t.Errorf("tail (-want +got):\n%s", diff)
		}
	})
	t.Run("at most tailBytes bytes however long the lines", func(t *testing.T) {
		tail := newStderrTail()
		for range 1000 {
			tail.add([]byte(strings.Repeat("x", 10*tailLineSize)))
		}
		if n := len(tail.String()); n > tailBytes {
			t.Errorf("tail holds %d bytes, more than %d", n, tailBytes)
		}
		if tail.String() == "" {
			t.Error("tail is empty")
		}
	})
	t.Run("blank lines are skipped", func(t *testing.T) {
		tail := newStderrTail()
		for _, l := range []string{"first", "", "   ", "second"} {
			tail.add([]byte(l))
		}
		if diff := cmp.Diff("first\nsecond", tail.String()); diff != "" {
			t.Errorf("tail (-want +got):\n%s", diff)
		}
	})
}

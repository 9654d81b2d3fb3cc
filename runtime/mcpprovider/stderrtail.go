package mcpprovider

import (
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Bounds of what is kept of a child's stderr: enough for the server's own
// account of why it failed ("fatal: cannot open display"), never more than a
// few KiB however much it writes.
const (
	tailLines    = 20
	tailBytes    = 4 << 10
	tailLineSize = 512
)

// stderrTail keeps the last lines a child wrote to stderr, so that a provider
// that fails can show the server's own words in health and errors. Lines are
// valid UTF-8 without control characters, cut at tailLineSize bytes; blank
// lines are skipped. It holds at most tailLines lines and tailBytes bytes.
type stderrTail struct {
	mu    sync.Mutex
	lines []string
	size  int
	done  chan struct{} // closed when the child's stderr has ended
}

func newStderrTail() *stderrTail { return &stderrTail{done: make(chan struct{})} }

// add keeps line (one line of stderr without its end of line), dropping the
// oldest lines past the bounds.
func (t *stderrTail) add(line []byte) {
	s := cleanLine(line)
	if s == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, s)
	t.size += len(s) + 1
	for len(t.lines) > tailLines || t.size > tailBytes {
		t.size -= len(t.lines[0]) + 1
		t.lines[0] = ""
		t.lines = t.lines[1:]
	}
}

// close marks the end of the child's stderr.
func (t *stderrTail) close() { close(t.done) }

// wait returns once the child's stderr has ended or after d, whichever is
// first: a grandchild holding the pipe open must not delay a report.
func (t *stderrTail) wait(d time.Duration) {
	select {
	case <-t.done:
	case <-time.After(d):
	}
}

// String returns the kept lines, oldest first, separated by newlines.
func (t *stderrTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

// cleanLine makes one line of a child's output fit to show: invalid UTF-8
// becomes U+FFFD, tabs become spaces, other control characters (terminal
// escape sequences included) are dropped, surrounding space is trimmed, and
// a line longer than tailLineSize bytes is cut at a character boundary and
// ends with "…".
func cleanLine(b []byte) string {
	if len(b) > 4*tailLineSize {
		b = b[:4*tailLineSize] // the rest would be cut anyway
	}
	s := strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, strings.ToValidUTF8(string(b), "\uFFFD"))
	s = strings.TrimSpace(s)
	if len(s) <= tailLineSize {
		return s
	}
	cut := tailLineSize - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

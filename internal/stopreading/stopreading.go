// Package stopreading lets a test MCP server stop reading its stdin on
// request, as a hung server does: the host's writes to it then fill the
// pipe and stay there. The host must keep serving everything else.
package stopreading

import (
	"io"
	"sync"
	"time"
)

// Reader reads from r until Stop; from then on every Read blocks forever.
type Reader struct {
	r    io.Reader
	stop chan struct{}
	once sync.Once
}

// New wraps r.
func New(r io.Reader) *Reader { return &Reader{r: r, stop: make(chan struct{})} }

// Read reads from r, or blocks forever once Stop was called.
func (s *Reader) Read(p []byte) (int, error) {
	select {
	case <-s.stop:
		// Asleep rather than blocked on nothing: Go would take a process
		// whose goroutines all wait on channels for a deadlock and end it.
		for {
			time.Sleep(time.Hour)
		}
	default:
	}
	return s.r.Read(p)
}

// Stop makes every later Read block.
func (s *Reader) Stop() { s.once.Do(func() { close(s.stop) }) }

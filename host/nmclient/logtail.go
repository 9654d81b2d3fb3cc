package nmclient

import "sync"

// LogTail keeps the last bytes of a host's log (its stderr), for the error
// messages and test failures that quote it. It is safe for the goroutine
// copying the log and its readers at once; give it to WithStderr.
type LogTail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

// NewLogTail returns a LogTail that keeps the last max bytes.
func NewLogTail(max int) *LogTail { return &LogTail{max: max} }

// Write appends p, dropping what falls out of the tail.
func (t *LogTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// String returns the tail kept so far.
func (t *LogTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// callLog appends one JSON line per tool call to a file, so tests that drive
// the server through other programs (the host, a browser) can assert what ran.
// Each line is written with a single O_APPEND write, so lines from several
// server processes (restarts) never interleave.
type callLog struct {
	mu   sync.Mutex
	path string
}

// entry is one line of the log.
type entry struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Cancelled bool            `json:"cancelled,omitempty"`
	PID       int             `json:"pid"`
}

func newCallLog(path string) *callLog { return &callLog{path: path} }

func (l *callLog) record(tool string, args json.RawMessage, cancelled bool) {
	if l.path == "" {
		return
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	line, err := json.Marshal(entry{Tool: tool, Arguments: args, Cancelled: cancelled, PID: os.Getpid()})
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakemunim: log: %v\n", err)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakemunim: log: %v\n", err)
		return
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		fmt.Fprintf(os.Stderr, "fakemunim: log: %v\n", err)
	}
}

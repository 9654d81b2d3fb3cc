//go:build !unix

package mcpprovider

import "io"

// nonBlockingWriter returns nil: a pipe on Windows cannot be written without
// blocking, so every message goes through the outbox's goroutine.
func nonBlockingWriter(io.Writer) func([]byte) (int, error) { return nil }

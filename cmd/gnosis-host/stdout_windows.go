//go:build windows

package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// privateStdout keeps the real stdout handle for the frame writer and makes
// the process's standard output handle and os.Stdout refer to stderr, so
// nothing printed by a library can corrupt the stream.
func privateStdout() (*os.File, error) {
	if err := windows.SetStdHandle(windows.STD_OUTPUT_HANDLE, windows.Handle(os.Stderr.Fd())); err != nil {
		return nil, fmt.Errorf("pointing stdout at stderr: %w", err)
	}
	// Hand over the *os.File that already wraps the handle: a second
	// os.NewFile of the same handle would leave the first one unreachable, and
	// its finalizer would close the handle under the frame writer.
	proto := os.Stdout
	os.Stdout = os.Stderr
	return proto, nil
}

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
	h, err := windows.GetStdHandle(windows.STD_OUTPUT_HANDLE)
	if err != nil {
		return nil, fmt.Errorf("getting stdout: %w", err)
	}
	if err := windows.SetStdHandle(windows.STD_OUTPUT_HANDLE, windows.Handle(os.Stderr.Fd())); err != nil {
		return nil, fmt.Errorf("pointing stdout at stderr: %w", err)
	}
	os.Stdout = os.Stderr
	return os.NewFile(uintptr(h), "stdout (protocol)"), nil
}

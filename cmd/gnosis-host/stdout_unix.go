//go:build unix

package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// privateStdout moves the protocol stream off file descriptor 1: it returns a
// close-on-exec duplicate of the real stdout for the frame writer, points fd 1
// and os.Stdout at stderr (so nothing printed by a library or C code can
// corrupt the stream), and ignores SIGPIPE (so a closed port is a write error,
// handled, not a silent death that would orphan the providers).
func privateStdout() (*os.File, error) {
	signal.Ignore(syscall.SIGPIPE)
	fd, err := unix.FcntlInt(uintptr(1), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("duplicating stdout: %w", err)
	}
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("pointing stdout at stderr: %w", err)
	}
	os.Stdout = os.Stderr
	return os.NewFile(uintptr(fd), "/dev/stdout (protocol)"), nil
}

package pipesize

import (
	"os"

	"golang.org/x/sys/unix"
)

// Widen asks for a buffer of n bytes on the pipe f is an end of. A refusal
// (f is not a pipe, n is over the user's pipe limit) leaves it as it was.
func Widen(f *os.File, n int) {
	_, _ = unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, n)
}

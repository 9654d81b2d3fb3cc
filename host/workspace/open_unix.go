//go:build unix

package workspace

import (
	"os"
	"syscall"
)

// openForRead opens rel for reading without waiting: O_NONBLOCK makes opening
// a FIFO (which would wait for a writer) or a device return at once, so the
// caller can fstat the descriptor and refuse anything but a regular file.
// Reads of regular files ignore the flag.
func openForRead(root *os.Root, rel string) (*os.File, error) {
	return root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

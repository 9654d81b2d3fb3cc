//go:build linux

package mcpprovider

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// knowsAvailable tells that available works, which calls reading for
// themselves need (reader.go).
const knowsAvailable = true

// available returns how many bytes wait unread in the pipe rc, 0 if it
// cannot tell.
func available(rc syscall.RawConn) int {
	n := 0
	_ = rc.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ); err == nil {
			n = v
		}
	})
	return n
}

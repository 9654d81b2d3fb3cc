//go:build unix

package mcpprovider

import (
	"errors"
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// nonBlockingWriter returns a write that never blocks, for a w whose
// descriptor is in non-blocking mode (the pipes os.Pipe makes are): it
// writes what the pipe takes at once and reports how much. nil when w is not
// such a file; every message then goes through the outbox's goroutine.
func nonBlockingWriter(w io.Writer) func([]byte) (int, error) {
	sc, ok := w.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	nonBlocking := false
	_ = rc.Control(func(fd uintptr) {
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonBlocking = err == nil && fl&unix.O_NONBLOCK != 0
	})
	if !nonBlocking {
		return nil
	}
	return func(p []byte) (int, error) {
		n := 0
		var werr error
		err := rc.Write(func(fd uintptr) bool {
			for n < len(p) {
				m, e := unix.Write(int(fd), p[n:])
				if m > 0 {
					n += m
				}
				switch {
				case e == nil && m > 0:
					continue
				case errors.Is(e, unix.EINTR):
					continue
				case e != nil && !errors.Is(e, unix.EAGAIN):
					werr = e
				}
				break
			}
			return true // never wait for the pipe: what is left goes to the queue
		})
		if werr == nil {
			werr = err
		}
		return n, werr
	}
}

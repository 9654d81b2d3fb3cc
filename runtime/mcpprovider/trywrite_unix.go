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
// such a file; every message then goes through the outbox's goroutine. The
// write must not be called concurrently (the outbox calls it only while it
// has nothing else writing).
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
	r := &rawWriter{rc: rc}
	r.attempt = r.writeFD // made once: a call allocates nothing
	return r.write
}

// rawWriter writes through the file's descriptor under its own lock
// (syscall.RawConn), without ever waiting for the pipe to drain.
type rawWriter struct {
	rc      syscall.RawConn
	attempt func(fd uintptr) bool
	p       []byte // what the current write writes
	n       int    // how much of it has been written
	err     error
}

func (r *rawWriter) write(p []byte) (int, error) {
	r.p, r.n, r.err = p, 0, nil
	err := r.rc.Write(r.attempt)
	n, werr := r.n, r.err
	r.p, r.err = nil, nil
	if werr == nil {
		werr = err
	}
	return n, werr
}

func (r *rawWriter) writeFD(fd uintptr) bool {
	for r.n < len(r.p) {
		m, e := unix.Write(int(fd), r.p[r.n:])
		if m > 0 {
			r.n += m
		}
		switch {
		case e == nil && m > 0, errors.Is(e, unix.EINTR):
			continue
		case e != nil && !errors.Is(e, unix.EAGAIN):
			r.err = e
		}
		break
	}
	return true // never wait for the pipe: what is left goes to the queue
}

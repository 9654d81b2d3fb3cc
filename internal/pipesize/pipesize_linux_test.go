package pipesize

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestWidenGivesAPipeAWholeFrame(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	before, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	if before >= Frame {
		t.Skipf("this system's pipes already hold %d bytes", before)
	}
	if b, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		if max, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && max < Frame {
			t.Skipf("this system lets a pipe hold at most %d bytes", max)
		}
	}
	Widen(w, Frame)
	after, err := unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	if after < Frame {
		t.Fatalf("pipe buffer %d bytes after Widen, want at least %d (was %d)", after, Frame, before)
	}
	// A whole frame now goes in without a reader.
	if n, err := w.Write(make([]byte, Frame)); err != nil || n != Frame {
		t.Fatalf("write of one frame: %d, %v", n, err)
	}
}

func TestWidenLeavesAFileAlone(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	Widen(f, Frame)
	if _, err := f.WriteString("still writable"); err != nil {
		t.Fatal(err)
	}
}

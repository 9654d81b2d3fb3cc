//go:build unix

package workspace

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gnosis/gnosis/runtime/wire"
)

// A FIFO in the workspace would make a plain open wait for a writer forever;
// Read must refuse it (and anything else that is not a regular file) at once.
func TestReadRefusesNonRegularFilesWithoutWaiting(t *testing.T) {
	w, dir, _ := fixture(t)
	fifo := filepath.Join(dir, "pipe")
	must(t, syscall.Mkfifo(fifo, 0o600))
	must(t, os.Symlink("pipe", filepath.Join(dir, "link-to-pipe")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "docs", "pipe.txt"), 0o600))
	// Should an open wait anyway, a writer opening the FIFO releases it
	// when the test ends, so a failure does not leave a stuck goroutine.
	t.Cleanup(func() { release(fifo); release(filepath.Join(dir, "docs", "pipe.txt")) })

	for _, rel := range []string{"pipe", "link-to-pipe", "docs/pipe.txt", "docs"} {
		t.Run(rel, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := w.Read(rel, 0, 0)
				done <- err
			}()
			select {
			case err := <-done:
				if got := codeOf(err); got != wire.CodeInvalidRequest {
					t.Fatalf("Read(%q) code = %q (err %v), want %q", rel, got, err, wire.CodeInvalidRequest)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("Read(%q) still waiting after 5s", rel)
			}
		})
	}
}

// release opens a FIFO for writing without waiting, which lets a reader
// blocked in open continue.
func release(fifo string) {
	if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}

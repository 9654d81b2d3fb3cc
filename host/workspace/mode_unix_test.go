//go:build unix

package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A saved download gets 0644 less the umask, like a file any program of the
// user creates; it is private (0600) while it is being written.
func TestDownloadsHonourTheUmask(t *testing.T) {
	tests := []struct {
		umask int
		want  os.FileMode
	}{
		{0o077, 0o600},
		{0o022, 0o644},
		{0o027, 0o640},
		{0o002, 0o644},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("umask %03o", tt.umask), func(t *testing.T) {
			old := syscall.Umask(tt.umask)
			t.Cleanup(func() { syscall.Umask(old) })
			w, dir, _ := fixture(t)
			h, err := w.Create("saved.txt")
			must(t, err)
			_, err = w.Append(h, []byte("body"))
			must(t, err)
			temp := modeOf(t, filepath.Join(dir, tempPrefix+h+".part"))
			_, _, err = w.Commit(h)
			must(t, err)
			got := struct{ Temp, Saved os.FileMode }{temp, modeOf(t, filepath.Join(dir, "saved.txt"))}
			want := struct{ Temp, Saved os.FileMode }{0o600, tt.want}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("modes under umask %03o (-want +got):\n%s", tt.umask, d)
			}
			assertNoTempFiles(t, dir)
		})
	}
}

func modeOf(t *testing.T, name string) os.FileMode {
	t.Helper()
	st, err := os.Stat(name)
	must(t, err)
	return st.Mode().Perm()
}

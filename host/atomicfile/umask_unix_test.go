//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// withUmask sets the process umask for one test and restores it after.
// Tests that use it must not run in parallel.
func withUmask(t *testing.T, mask int) {
	t.Helper()
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

func TestWriteHonoursTheUmask(t *testing.T) {
	tests := []struct {
		name     string
		umask    int
		perm     os.FileMode
		existing os.FileMode // 0: no file before the write
		wantFile os.FileMode
		wantDir  os.FileMode
	}{
		{"077 masks a shared file to the owner", 0o077, 0o644, 0, 0o600, 0o700},
		{"077 masks an executable to the owner", 0o077, 0o755, 0, 0o700, 0o700},
		{"077 narrows a replaced world-writable file", 0o077, 0o644, 0o666, 0o600, 0o700},
		{"022 keeps a shared file readable", 0o022, 0o644, 0, 0o644, 0o755},
		{"022 keeps an executable runnable", 0o022, 0o755, 0, 0o755, 0o755},
		{"022 never widens a private file", 0o022, 0o600, 0, 0o600, 0o755},
		{"027 keeps the group's read bits only", 0o027, 0o664, 0, 0o640, 0o750},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withUmask(t, tt.umask)
			dir := filepath.Join(t.TempDir(), "new")
			name := filepath.Join(dir, "file")
			if tt.existing != 0 {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(name, []byte("old"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(name, tt.existing); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dir, tt.wantDir); err != nil {
					t.Fatal(err)
				}
			}
			if err := Write(name, []byte("new"), tt.perm); err != nil {
				t.Fatal(err)
			}
			got := struct{ File, Dir os.FileMode }{modeOf(t, name), modeOf(t, dir)}
			want := struct{ File, Dir os.FileMode }{tt.wantFile, tt.wantDir}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("modes under umask %03o, perm %03o (-want +got):\n%s", tt.umask, tt.perm, d)
			}
		})
	}
}

func modeOf(t *testing.T, name string) os.FileMode {
	t.Helper()
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

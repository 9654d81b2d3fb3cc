package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriteReplacesContentsAndLeavesNoTemporaryFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	name := filepath.Join(dir, "config.json")
	for _, content := range []string{"first", "second, longer", ""} {
		if err := Write(name, []byte(content), 0o600); err != nil {
			t.Fatalf("Write(%q): %v", content, err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Errorf("contents = %q, want %q", got, content)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if d := cmp.Diff([]string{"config.json"}, names); d != "" {
		t.Errorf("folder entries (-want +got):\n%s", d)
	}
}

func TestWriteFailsWhenTheFolderCannotBeMade(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(blocker, "x"), []byte("x"), 0o600); err == nil {
		t.Fatal("Write under a regular file succeeded")
	}
}

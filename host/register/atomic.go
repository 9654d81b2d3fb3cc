package register

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// missingDirs returns dir and those of its parents that do not exist yet,
// deepest first: the folders a write into dir creates.
func missingDirs(dir string) []string {
	var out []string
	for {
		if _, err := os.Stat(dir); err == nil {
			return out
		}
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// writeFile writes data to name atomically (a temporary file in the same
// folder, then a rename), creating the folder if needed, and reads it back.
func writeFile(name string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Chmod(tmp.Name(), perm); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		// Windows cannot replace a running program (a browser may have the
		// host open), but it can rename it: move it aside and retry.
		if aside := os.Rename(name, name+".old"); aside != nil || os.Rename(tmp.Name(), name) != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	back, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("read back %s: %w", name, err)
	}
	if !bytes.Equal(back, data) {
		return fmt.Errorf("read back %s: contents differ from what was written", name)
	}
	return nil
}

// copyFile copies the executable src to dst atomically, unless dst already
// has the same contents.
func copyFile(src, dst string) (changed bool, err error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", src, err)
	}
	if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := writeFile(dst, data, 0o755); err != nil {
		return false, err
	}
	return true, nil
}

// sameFile reports whether a and b name the same existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}

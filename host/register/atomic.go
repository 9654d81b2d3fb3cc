package register

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gnosis/gnosis/host/atomicfile"
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

// writeFile writes data to name atomically with at most perm (see
// atomicfile.Write): every file Install and the configuration commands write
// goes through it.
func writeFile(name string, data []byte, perm os.FileMode) error {
	return atomicfile.Write(name, data, perm)
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

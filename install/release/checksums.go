package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// writeChecksums writes dir/SHA256SUMS for the files names (in dir), in the
// format sha256sum writes and sha256sum -c reads: the hex digest, two
// spaces, the name.
func writeChecksums(dir string, names []string) error {
	var b strings.Builder
	for _, n := range names {
		sum, err := fileSHA256(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	return writeAtomic(filepath.Join(dir, Checksums), []byte(b.String()))
}

func fileSHA256(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("checksum %s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeAtomic writes name whole or not at all.
func writeAtomic(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

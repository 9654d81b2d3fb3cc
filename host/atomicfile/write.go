package atomicfile

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// tempAttempts bounds the retries when a temporary name is already taken.
const tempAttempts = 10

// Write replaces name with data atomically. perm is the most the new file
// gets: the umask removes bits from it as for any created file. The folder is
// created (0o755 before the umask) if it is missing. After the rename the file
// is read back, so a write that did not stick is an error.
//
// On Windows a file in use (a running executable) cannot be replaced but can
// be renamed: it is moved aside to name+".old" and the rename retried.
func Write(name string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := createTemp(dir, filepath.Base(name), perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := fill(tmp, data); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
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

// createTemp creates a new file ".<base>.<random>.tmp" in dir with perm,
// exclusively, so the umask applies and no existing file is reused.
func createTemp(dir, base string, perm os.FileMode) (*os.File, error) {
	for range tempAttempts {
		var r [8]byte
		_, _ = rand.Read(r[:])
		p := filepath.Join(dir, "."+base+"."+hex.EncodeToString(r[:])+".tmp")
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("no free temporary name in %s", dir)
}

// fill writes data to f, syncs and closes it.
func fill(f *os.File, data []byte) error {
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

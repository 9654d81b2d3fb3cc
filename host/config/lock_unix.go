//go:build unix

package config

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockFolder takes an exclusive flock(2) on the folder dir, waiting for
// whoever holds it: the config file itself is replaced by a rename at each
// write, so a lock on it would protect nothing, and the folder leaves no
// lock file behind. unlock releases it.
func lockFolder(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	fd := int(f.Fd())
	for {
		err = unix.Flock(fd, unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() {
		unix.Flock(fd, unix.LOCK_UN)
		f.Close()
	}, nil
}

//go:build windows

package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/windows"
)

// lockFolder takes a named mutex that stands for the folder dir, waiting
// for whoever holds it: every process of this user (the running host, an
// installer, an MSI's custom action) that edits a config file there names
// the same mutex, and nothing is left on disk. The name is a hash of the
// folder's full path in lower case (Windows paths are case-insensitive).
// A mutex belongs to a thread: the goroutine stays on its thread until
// unlock releases it.
func lockFolder(dir string) (unlock func(), err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	sum := sha256.Sum256([]byte(strings.ToLower(abs)))
	name, err := windows.UTF16PtrFromString(`Global\gnosis-config-` + hex.EncodeToString(sum[:16]))
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	runtime.LockOSThread()
	h, err := windows.CreateMutex(nil, false, name)
	if h == 0 {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	// WAIT_ABANDONED: a holder died holding it; the mutex is now ours.
	if ev, err := windows.WaitForSingleObject(h, windows.INFINITE); ev != windows.WAIT_OBJECT_0 && ev != windows.WAIT_ABANDONED {
		windows.CloseHandle(h)
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("lock %s: wait: %v", dir, err)
	}
	return func() {
		windows.ReleaseMutex(h)
		windows.CloseHandle(h)
		runtime.UnlockOSThread()
	}, nil
}

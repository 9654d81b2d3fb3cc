// Package winetest ends a test's Wine session without leaving anything
// behind: the prefix's wineserver is stopped, and the folder Wine made for
// its socket outside the prefix (/tmp/wine-XXXXXX/server-<dev>-<inode> on
// Debian's Wine 8, /tmp/.wine-<uid>/server-<dev>-<inode> upstream) is removed
// with it. Without this, every run of the Wine tests left a folder in /tmp.
package winetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Cleanup registers, on t, the end of the Wine session of prefix: `wineserver
// -k` then `-w` (it waits until the server has gone) with env, then removal of
// the prefix's server folder and of its parent when nothing else is in it.
// Call it once the prefix exists (Wine's first run made it); t.TempDir's own
// removal of the prefix, registered before, runs after this.
func Cleanup(t testing.TB, server, prefix string, env []string) {
	t.Helper()
	name, err := ServerDirName(prefix)
	if err != nil {
		t.Fatalf("wine prefix: %v", err)
	}
	t.Cleanup(func() {
		if server != "" {
			for _, flag := range []string{"-k", "-w"} {
				cmd := exec.Command(server, flag)
				cmd.Env = env
				_ = cmd.Run() // -k fails when the server has already gone, which is the aim
			}
		}
		for _, pattern := range []string{"/tmp/wine-*/" + name, fmt.Sprintf("/tmp/.wine-%d/%s", os.Getuid(), name)} {
			found, _ := filepath.Glob(pattern)
			for _, dir := range found {
				if err := os.RemoveAll(dir); err != nil {
					t.Errorf("remove wine's server folder: %v", err)
				}
				_ = os.Remove(filepath.Dir(dir)) // only when empty: another prefix may share it
			}
		}
	})
}

// Server is the wineserver of the Wine whose loader is at loader: the one
// beside it (Debian's /usr/lib/wine), else the one on PATH; "" when neither is.
func Server(loader string) string {
	next := filepath.Join(filepath.Dir(loader), "wineserver")
	if _, err := os.Stat(next); err == nil {
		return next
	}
	path, _ := exec.LookPath("wineserver")
	return path
}

// ServerDirName is the name Wine gives the server folder of prefix:
// server-<device>-<inode> in hexadecimal.
func ServerDirName(prefix string) (string, error) {
	info, err := os.Stat(prefix)
	if err != nil {
		return "", err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", fmt.Errorf("no device and inode for %s", prefix)
	}
	return fmt.Sprintf("server-%x-%x", uint64(st.Dev), st.Ino), nil
}

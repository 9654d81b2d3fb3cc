package winetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/prereq"
	"github.com/gnosis/gnosis/internal/testshort"
)

// A real wineserver on a fresh prefix makes its server folder outside the
// prefix; Cleanup stops the server and leaves no such folder behind.
func TestCleanupStopsTheServerAndRemovesItsFolder(t *testing.T) {
	testshort.Skip(t, "a real wineserver")
	server := prereq.Command(t, prereq.Setup+" (apt-get install wine64)", "/usr/lib/wine/wineserver", "wineserver")
	prefix := filepath.Join(t.TempDir(), "prefix")
	if err := os.Mkdir(prefix, 0o700); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "WINEPREFIX="+prefix)
	name, err := ServerDirName(prefix)
	if err != nil {
		t.Fatal(err)
	}
	folders := func() []string {
		a, _ := filepath.Glob("/tmp/wine-*/" + name)
		b, _ := filepath.Glob("/tmp/.wine-*/" + name)
		return append(a, b...)
	}

	t.Run("session", func(t *testing.T) {
		// Stays up 30 s after its last client (it has none). It goes to the
		// background holding its standard streams, so they are not pipes here.
		start := exec.Command(server, "-p30")
		start.Env = env
		if err := start.Run(); err != nil {
			t.Fatalf("start wineserver: %v", err)
		}
		Cleanup(t, server, prefix, env)
		if len(folders()) != 1 {
			t.Fatalf("wineserver made no folder %s under /tmp: %v", name, folders())
		}
	})
	if left := folders(); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	// The server works in its folder: a process still there is the server still running.
	cwds, _ := filepath.Glob("/proc/[0-9]*/cwd")
	for _, cwd := range cwds {
		if dir, err := os.Readlink(cwd); err == nil && strings.Contains(dir, name) {
			t.Errorf("a process still runs in %s: %s", dir, cwd)
		}
	}
}

package tests

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/prereq"
	"github.com/gnosis/gnosis/internal/testshort"
)

// TestQuickStartWithTheFilesystemServer follows the README's worked example
// on a fresh home: install pointing at @modelcontextprotocol/server-filesystem
// (a real npm MCP server) with a folder, then the connection check lists the
// server's tools with their titles and hints and exits 0; a call from the
// terminal is refused until the user grants it, as the README says.
func TestQuickStartWithTheFilesystemServer(t *testing.T) {
	testshort.Parallel(t)
	if runtime.GOOS == "windows" {
		t.Skip("the worked example is the Linux/macOS one")
	}
	node := prereq.Command(t, "install Node.js 20 (apt-get install nodejs)", "node")
	entry := prereq.File(t, filepath.Join(repoRoot, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js"),
		"the npm package @modelcontextprotocol/server-filesystem", prereq.NPM)
	h := newRegHome(t)
	files := filepath.Join(h.home, "gnosis-files")
	if err := os.MkdirAll(files, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(files, "hello.txt"), []byte("hello\n"))

	out, err := h.run(t, hostBin, "install", "--browsers", "chrome", "--munim", node, "--", entry, files)
	if err != nil || strings.Contains(out, "warning:") {
		t.Fatalf("install: %v\n%s", err, out)
	}
	installed := filepath.Join(h.data, "gnosis", "gnosis-host")

	out, err = h.run(t, installed, "call", "capabilities.list")
	if err != nil {
		t.Fatalf("call capabilities.list: %v (want exit 0 with every provider ready)\n%s", err, out)
	}
	for _, want := range []string{`"computer.read_text_file"`, `"computer.list_directory"`, `"readOnlyHint":true`} {
		if !strings.Contains(out, want) {
			t.Errorf("capabilities.list lacks %s:\n%.2000s", want, out)
		}
	}

	out, err = h.run(t, installed, "call", "execute", `{"capability":"computer.list_directory","arguments":{"path":"`+files+`"}}`)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(out, `"FORBIDDEN"`) || strings.Contains(out, "hello.txt") {
		t.Errorf("a call nobody granted: %v, want FORBIDDEN and exit 1:\n%s", err, out)
	}
}

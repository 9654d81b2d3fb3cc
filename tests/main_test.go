// Package tests holds the integration tests of the real gnosis-host binary.
// TestMain builds ./cmd/gnosis-host and ./tests/fakemunim into a temporary
// directory; each test then starts the host exactly as a browser does (the
// extension's origin as argv[1], length-prefixed JSON on stdin and stdout)
// with a configuration file naming fakemunim and, in everything_test.go, the
// third-party @modelcontextprotocol/server-everything as providers.
//
// Other tests in this package may use hostBin and fakemunimBin; there is only
// one TestMain per package, and it is this one.
package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

var (
	// repoRoot is the module root (the parent of this directory).
	repoRoot string
	// binDir holds the binaries built for this run.
	binDir string
	// hostBin is the freshly built gnosis-host.
	hostBin string
	// fakemunimBin is the freshly built fake Munim MCP server.
	fakemunimBin string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	repoRoot = filepath.Dir(wd)
	binDir, err = os.MkdirTemp("", "gnosis-tests-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(binDir)
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	hostBin = filepath.Join(binDir, "gnosis-host"+exe)
	fakemunimBin = filepath.Join(binDir, "fakemunim"+exe)
	for pkg, out := range map[string]string{"./cmd/gnosis-host": hostBin, "./tests/fakemunim": fakemunimBin} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = repoRoot
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n", pkg, err)
			return 1
		}
	}
	return m.Run()
}

//go:build linux

package mcpprovider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/prereq"
	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/gnosis/gnosis/internal/winetest"
)

// TestWindowsBuildUnderWine cross-compiles this package's tests and the test
// server for Windows and runs them under Wine: the job object, the suspended
// start and the pipes are exercised by the real Windows code paths. It needs
// wine64 and mingw-w64 (for the ProcessPrng shim Go needs under Wine 8), and
// is skipped with -short; without them, internal/prereq decides (fails
// under CI, skips elsewhere).
// windowsTests are the tests whose code paths differ on Windows: starting the
// server suspended in a job object, its pipes and stderr, writing to it, and
// stopping the whole tree on crash, timeout, cancel and close. The rest of the package is
// platform-independent logic, which the Linux run covers.
var windowsTests = []string{
	"TestCrashMidCallIsUnavailableThenTheServerIsBack",
	"TestCloseStopsTheWholeProcessTreeAfterTheGrace",
	"TestCancellingTheContextIsCancelledAndTheServerIsTold",
	"TestCallTimeoutIsTimeoutAndTheServerIsToldToStop",
	"TestAServerThatCannotStartIsDownWithTheReasonAndRetried",
	"TestAFailedStartSaysWhatWentWrongInTheServersOwnWords",
	"TestChildStderrIsLoggedLineByLineWithTheProviderName",
	"TestALargeResultArrivesWhole",
	// A pipe cannot be written without blocking on Windows: every message
	// goes through the outbox's goroutine.
	"TestOutboxKeepsOrderAndNeverBlocks",
	"TestAServerThatStopsReadingFailsOnlyItsOwnCalls",
}

func TestWindowsBuildUnderWine(t *testing.T) {
	testshort.Skip(t, "the Windows build under Wine")
	if os.Getenv("MCPPROVIDER_TESTSERVER") != "" {
		t.Skip("already the cross-compiled run")
	}
	wine := prereq.Command(t, prereq.Setup+" (apt-get install wine64)", "/usr/lib/wine/wine64", "wine64")
	gcc := prereq.Command(t, prereq.Setup+" (apt-get install gcc-mingw-w64-x86-64-win32)", "x86_64-w64-mingw32-gcc")
	shim, err := filepath.Abs("../../tests/testdata/wine/processprng.c")
	if err != nil {
		t.Fatal(err)
	}
	dir := tempDir(t)
	prefix := filepath.Join(dir, "prefix")
	env := append(os.Environ(), "WINEPREFIX="+prefix, "WINEDEBUG=-all")
	run := func(name string, args []string, extraEnv ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env = append(append([]string{}, env...), extraEnv...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// Creating the Wine prefix takes seconds of waiting on wineserver, so it
	// runs while the Windows binaries build.
	prefixReady := make(chan error, 1)
	go func() {
		cmd := exec.Command(wine, "cmd", "/c", "echo", "ready")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			err = fmt.Errorf("creating the Wine prefix: %w\n%s", err, out)
		}
		prefixReady <- err
	}()
	win := []string{"GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0"}
	run("go", []string{"build", "-o", filepath.Join(dir, "testserver.exe"), "./internal/testserver"}, win...)
	run("go", []string{"test", "-c", "-o", filepath.Join(dir, "mcpprovider.test.exe"), "."}, win...)
	run(gcc, []string{"-shared", "-o", filepath.Join(dir, "bcryptprimitives.dll"), shim, "-ladvapi32", "-Wl,--kill-at"})
	if err := <-prefixReady; err != nil {
		t.Fatal(err)
	}
	winetest.Cleanup(t, winetest.Server(wine), prefix, env)
	dll, err := os.ReadFile(filepath.Join(dir, "bcryptprimitives.dll"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll"), dll, 0o644); err != nil {
		t.Fatal(err)
	}
	// Wine maps Z: to /, so the Linux path of the server works as Z:<path>.
	server := "Z:" + strings.ReplaceAll(filepath.Join(dir, "testserver.exe"), "/", `\`)
	out := run(wine, []string{filepath.Join(dir, "mcpprovider.test.exe"), "-test.v", "-test.timeout", "120s", "-test.run", "^(" + strings.Join(windowsTests, "|") + ")$"},
		"MCPPROVIDER_TESTSERVER="+server)
	for _, name := range windowsTests {
		if !strings.Contains(out, "--- PASS: "+name) {
			t.Errorf("%s did not pass under Wine", name)
		}
	}
	if !strings.Contains(out, "\nPASS") {
		t.Errorf("Windows test run failed:\n%s", out)
	}
}

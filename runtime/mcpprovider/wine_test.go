//go:build linux

package mcpprovider

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWindowsBuildUnderWine cross-compiles this package's tests and the test
// server for Windows and runs them under Wine: the job object, the suspended
// start and the pipes are exercised by the real Windows code paths. It needs
// wine64 and mingw-w64 (for the ProcessPrng shim Go needs under Wine 8), and
// is skipped without them and with -short.
func TestWindowsBuildUnderWine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if os.Getenv("MCPPROVIDER_TESTSERVER") != "" {
		t.Skip("already the cross-compiled run")
	}
	wine := "/usr/lib/wine/wine64"
	if _, err := os.Stat(wine); err != nil {
		t.Skip("wine64 is not installed")
	}
	gcc, err := exec.LookPath("x86_64-w64-mingw32-gcc")
	if err != nil {
		t.Skip("x86_64-w64-mingw32-gcc is not installed")
	}
	shim, err := filepath.Abs("../../tests/testdata/wine/processprng.c")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(shim); err != nil {
		t.Skipf("no ProcessPrng shim source: %v", err)
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
	win := []string{"GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0"}
	run("go", []string{"build", "-o", filepath.Join(dir, "testserver.exe"), "./internal/testserver"}, win...)
	run("go", []string{"test", "-c", "-o", filepath.Join(dir, "mcpprovider.test.exe"), "."}, win...)
	run(gcc, []string{"-shared", "-o", filepath.Join(dir, "bcryptprimitives.dll"), shim, "-ladvapi32", "-Wl,--kill-at"})
	run(wine, []string{"cmd", "/c", "echo", "ready"}) // creates the prefix
	dll, err := os.ReadFile(filepath.Join(dir, "bcryptprimitives.dll"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll"), dll, 0o644); err != nil {
		t.Fatal(err)
	}
	// Wine maps Z: to /, so the Linux path of the server works as Z:<path>.
	server := "Z:" + strings.ReplaceAll(filepath.Join(dir, "testserver.exe"), "/", `\`)
	out := run(wine, []string{filepath.Join(dir, "mcpprovider.test.exe"), "-test.v", "-test.timeout", "120s", "-test.run", "Test[^W]"},
		"MCPPROVIDER_TESTSERVER="+server)
	for _, name := range []string{"TestCrashMidCallIsUnavailableThenTheServerIsBack", "TestCloseStopsTheWholeProcessTreeFast", "TestCancellingTheContextIsCancelledAndTheServerIsTold"} {
		if !strings.Contains(out, "--- PASS: "+name) {
			t.Errorf("%s did not pass under Wine", name)
		}
	}
	if !strings.Contains(out, "\nPASS") {
		t.Errorf("Windows test run failed:\n%s", out)
	}
}

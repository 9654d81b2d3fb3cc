// Package prereq is the one policy for a test whose prerequisite is missing
// (an npm package, wine, chromium, firefox-esr, mingw, osslsigncode).
//
// Under CI (the environment variable CI is "true", as .ci/run's machines
// set it) a missing prerequisite fails the test: tests/setup.sh installs all
// of them there, so one missing is a broken set-up that must not pass as a
// skip. Anywhere else the test is skipped with a message naming the fix, so
// `go test ./...` works after `npm ci` alone.
package prereq

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// Setup is the fix for anything the apt packages provide.
const Setup = "run tests/setup.sh, or make setup"

// NPM is the fix for a missing npm package.
const NPM = "run npm ci at the repository root"

// InCI reports whether the tests run under CI, where every prerequisite must
// be present.
func InCI() bool {
	ci, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && ci
}

// Missing ends the test because what is missing: it fails under CI and
// skips elsewhere, the message naming fix either way.
func Missing(t testing.TB, what, fix string) {
	t.Helper()
	msg := fmt.Sprintf("%s is missing: %s", what, fix)
	if InCI() {
		t.Fatal(msg + " (CI=true, so a missing prerequisite fails)")
	}
	t.Skip(msg)
}

// Command returns the path of the first of names found on PATH or, for a
// name with a slash, on disk; when none is there it calls Missing.
func Command(t testing.TB, fix string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	Missing(t, names[0], fix)
	return ""
}

// File returns path when it exists, and calls Missing otherwise.
func File(t testing.TB, path, what, fix string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: %v", what, err)
		}
		Missing(t, what+" ("+path+")", fix)
	}
	return path
}

// Package testshort is the one rule for tests left out of the fast inner
// loop (`make test-short`, `go test -short`): the Wine, release and browser
// suites and the few slow load tests. `make test` runs every one of them.
package testshort

import "testing"

// Skip ends the test under -short, saying what it is and that make test
// runs it.
func Skip(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short leaves out %s (make test runs it)", what)
	}
}

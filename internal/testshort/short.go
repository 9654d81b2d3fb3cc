// Package testshort is the one rule for the fast inner loop (`make
// test-short`, `go test -short`): the tests it leaves out (the Wine suites
// and the few slow load tests; the browser suites are not Go tests and are
// left to make test). It also marks the integration tests that run side by
// side, in make test as in the inner loop: they mostly wait on their
// processes.
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

// Parallel lets the test run beside the package's other parallel tests
// (go test's -parallel bounds how many): it has its own processes, files
// and ports, and mostly waits on them.
func Parallel(t *testing.T) {
	t.Parallel()
}

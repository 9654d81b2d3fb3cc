// Package testshort is the one rule for the fast inner loop (`make
// test-short`, `go test -short`): the tests it leaves out (the Wine suites
// and the few slow load tests; the browser suites are not Go tests and are
// left to make test), and the integration tests it runs side by side.
// `make test` runs every test, one at a time.
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
// under -short, where the inner loop wants the answer soon; without -short
// (make test, beside the browser suites) the tests run one at a time.
func Parallel(t *testing.T) {
	if testing.Short() {
		t.Parallel()
	}
}

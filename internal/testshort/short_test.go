package testshort

import "testing"

// Under -short the test ends as skipped, and otherwise goes on.
func TestSkipOnlyUnderShort(t *testing.T) {
	ran := false
	t.Run("inner", func(t *testing.T) {
		Skip(t, "this")
		ran = true
	})
	if ran == testing.Short() {
		t.Errorf("ran = %v under -short = %v", ran, testing.Short())
	}
}

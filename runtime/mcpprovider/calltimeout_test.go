package mcpprovider

import (
	"testing"
	"time"

	"github.com/gnosis/gnosis/runtime"
	"github.com/google/go-cmp/cmp"
)

// A server configured without a call limit gets the runtime's one default,
// the figure the host's config fills in and health reports.
func TestAnUnsetCallTimeoutIsTheRuntimeDefault(t *testing.T) {
	tests := []struct {
		name string
		set  time.Duration
		want time.Duration
	}{
		{"unset", 0, runtime.DefaultCallTimeout},
		{"negative", -time.Second, runtime.DefaultCallTimeout},
		{"set", 5 * time.Second, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, New(Config{Name: "x", Timeout: tt.set}).cfg.Timeout); d != "" {
				t.Errorf("call timeout (-want +got):\n%s", d)
			}
		})
	}
}

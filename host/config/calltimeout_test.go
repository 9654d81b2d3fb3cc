package config

import (
	"testing"
	"time"

	"github.com/gnosis/gnosis/runtime"
	"github.com/google/go-cmp/cmp"
)

// CallTimeout is the longest provider limit, the runtime's one default
// standing in for a provider that sets none.
func TestCallTimeoutIsTheLongestLimitWithTheRuntimeDefault(t *testing.T) {
	tests := []struct {
		name      string
		providers []Provider
		want      time.Duration
	}{
		{"no providers", nil, runtime.DefaultCallTimeout},
		{"one without a limit", []Provider{{Name: "a"}}, runtime.DefaultCallTimeout},
		{"a shorter limit and one unset", []Provider{{Name: "a", Timeout: Duration(time.Second)}, {Name: "b"}}, runtime.DefaultCallTimeout},
		{"a longer limit", []Provider{{Name: "a", Timeout: Duration(5 * time.Minute)}, {Name: "b"}}, 5 * time.Minute},
		{"only short limits", []Provider{{Name: "a", Timeout: Duration(7 * time.Second)}}, 7 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, Config{Providers: tt.providers}.CallTimeout()); d != "" {
				t.Errorf("CallTimeout (-want +got):\n%s", d)
			}
		})
	}
}

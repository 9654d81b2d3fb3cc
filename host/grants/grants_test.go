package grants

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gnosis/gnosis/runtime"
)

func TestSetKeepsGrantsOfToolsNotRegisteredNow(t *testing.T) {
	registered := []string{"computer.click", "computer.screenshot"}
	tests := []struct {
		name        string
		chosen, old runtime.Rule
		want        runtime.Rule
	}{
		{
			name:   "a provider that is down keeps its grants",
			chosen: runtime.Rule{Allow: []string{"computer.screenshot"}, Deny: []string{"computer.click"}},
			old:    runtime.Rule{Allow: []string{"files.read", "computer.click"}, Ask: []string{"files.write"}},
			want:   runtime.Rule{Allow: []string{"computer.screenshot", "files.read"}, Ask: []string{"files.write"}, Deny: []string{"computer.click"}},
		},
		{
			name:   "a pattern over registered tools is replaced by the choice",
			chosen: runtime.Rule{Ask: []string{"computer.click", "computer.screenshot"}},
			old:    runtime.Rule{Allow: []string{"computer.*"}},
			want:   runtime.Rule{Ask: []string{"computer.click", "computer.screenshot"}},
		},
		{
			name:   "a name the user chose for is not carried over twice",
			chosen: runtime.Rule{Deny: []string{"files.read"}},
			old:    runtime.Rule{Allow: []string{"files.read"}},
			want:   runtime.Rule{Deny: []string{"files.read"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := keepUnseen(tc.chosen, tc.old, registered)
			if d := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("rule (-want +got):\n%s", d)
			}
		})
	}
}

package tests

import (
	"encoding/json"
	"testing"

	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/google/go-cmp/cmp"
)

// A server whose tools have spaces in their names (as the Go SDK's
// examples do), invisible characters, or look-alikes of each other: the
// first become capabilities and run, the others are skipped, and health
// says which and why.
func TestToolNamesWithSpacesRunAndLookAlikesAreSkippedWithTheReasonInHealth(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	names, _ := json.Marshal([]string{"greet (structured)", "сlick", "zero\u200bwidth"})
	cfg := standardConfig(f)
	cfg.Providers = []ProviderConfig{f.provider("munim", "computer", "5s", map[string]string{"FAKEMUNIM_NAMES": string(names)})}
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()

	entries := listEntries(t, h)
	if _, ok := entries["computer.greet (structured)"]; !ok {
		t.Errorf("computer.greet (structured) is not listed")
	}
	for _, gone := range []string{"computer.click", "computer.сlick", "computer.zero\u200bwidth"} {
		if _, ok := entries[gone]; ok {
			t.Errorf("%q is listed", gone)
		}
	}

	r := h.execute("computer.greet (structured)", map[string]any{"value": "hi"})
	wantOK(t, r)
	f.awaitCall("greet (structured)", func(e callEntry) bool { return e.Tool == "greet (structured)" })

	r = h.call("health", nil)
	wantOK(t, r)
	var providers []struct {
		Name    string              `json:"name"`
		Skipped []map[string]string `json:"skipped"`
	}
	r.field(t, "providers", &providers)
	want := []map[string]string{
		{"tool": `"zero\u200bwidth"`, "reason": "tool name contains U+200B, a control or format character"},
		{"tool": `"click"`, "reason": `tool name looks like "\u0441lick", another tool of the same server`},
		{"tool": `"\u0441lick"`, "reason": `tool name looks like "click", another tool of the same server`},
	}
	if len(providers) != 1 {
		t.Fatalf("providers: %s", clip(r.raw))
	}
	// Names refused on their own first, then look-alikes, each in the
	// order of the server's tools/list.
	if diff := cmp.Diff(want, providers[0].Skipped); diff != "" {
		t.Errorf("health skipped (-want +got):\n%s", diff)
	}
}

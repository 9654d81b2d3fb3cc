package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/gnosis/gnosis/internal/testwait"
)

// A server with a 10 MB input schema of 200,000 patterns and one whose
// "$ref"s go round: both tools are listed unavailable with the reason,
// their calls fail before the server, and the other tools, one with an
// outputSchema, keep working.
func TestToolsWhoseSchemasCannotBeUsedAreUnavailableAndNeverCalled(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	cfg := standardConfig(f)
	cfg.Providers = []ProviderConfig{f.provider("munim", "computer", "5s",
		map[string]string{"FAKEMUNIM_BAD_SCHEMAS": "1", "FAKEMUNIM_FORECAST": "1"})}
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()

	want := map[string]string{
		"computer.huge_schema":   "its inputSchema cannot be used: schema is ",
		"computer.cyclic_schema": `its inputSchema cannot be used: the schema at /$defs/a refers to itself without descending into the value, so it cannot be evaluated`,
	}
	// Schemas compile in the background after discovery; the list says
	// so once they have.
	testwait.Until(t, replyTimeout, func() error {
		entries := listEntries(t, h)
		for name, prefix := range want {
			if !strings.HasPrefix(entries[name].Unavailable, prefix) {
				return fmt.Errorf("%s unavailable = %q, want %q...", name, entries[name].Unavailable, prefix)
			}
		}
		return nil
	})
	if got := listEntries(t, h)["computer.huge_schema"].Unavailable; !strings.HasSuffix(got, "bytes, more than the 1048576 allowed") {
		t.Errorf("huge_schema: %q", got)
	}

	for name, prefix := range want {
		// describe says why too, as list does.
		var d struct {
			Unavailable string `json:"unavailable"`
		}
		if r := h.call("capabilities.describe", map[string]any{"name": name}); json.Unmarshal(r.raw, &d) != nil || !strings.HasPrefix(d.Unavailable, prefix) {
			t.Errorf("describe %s: unavailable %q, want %q...: %s", name, d.Unavailable, prefix, clip(r.raw))
		}
		r := h.execute(name, map[string]any{})
		wantError(t, r, "EXECUTION_ERROR")
		if string(r.Details) != `{"reason":"invalid-schema"}` || !strings.Contains(r.Message, name+" is unavailable: its inputSchema cannot be used") {
			t.Errorf("%s: %s, details %s", name, r.Message, r.Details)
		}
	}

	r := h.execute("computer.forecast", map[string]any{"hours": 44})
	wantOK(t, r)
	var res struct {
		StructuredContent struct {
			Hours []json.RawMessage `json:"hours"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil || len(res.StructuredContent.Hours) != 44 {
		t.Errorf("forecast result (%v): %s", err, clip(r.raw))
	}
	// The server logs calls in order: once forecast is logged, a call to
	// the refused tools would be too.
	f.awaitCall("forecast", func(e callEntry) bool { return e.Tool == "forecast" })
	for _, c := range f.calls() {
		if c.Tool == "huge_schema" || c.Tool == "cyclic_schema" {
			t.Errorf("the server was called: %+v", c)
		}
	}
}

package tests

import (
	"strings"
	"testing"
)

// TestAProviderThatStopsReadingTakesNothingElseDown: fakemunim stops
// reading its stdin, and 200 executes of 2 KB each are sent to it. Health,
// cancel, capabilities, the workspace, the relay, the grants and another
// provider all answer before the first of those executes times out; the
// cancelled one ends CANCELLED, the others TIMEOUT. Then a flood of 5,000 executes to the stuck
// provider: every one is answered, OVERLOADED at once (saying why) past its
// write queue's bound, TIMEOUT for those queued.
func TestAProviderThatStopsReadingTakesNothingElseDown(t *testing.T) {
	stuck, other := newFake(t), newFake(t)
	cfg := &Config{Providers: []ProviderConfig{
		stuck.provider("munim", "computer", "8s", map[string]string{"FAKEMUNIM_FAULTS": "1"}),
		other.provider("other", "other", "8s", nil),
	}}
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()
	wantOK(t, h.execute("computer.stop_reading", nil))

	text := strings.Repeat("t", 2048)
	var stuckIDs []string
	for i := range 200 {
		stuckIDs = append(stuckIDs, h.send("execute", executeParams("computer.echo", map[string]any{"i": i, "text": text}, "")))
	}
	cancelled := stuckIDs[len(stuckIDs)-1]
	others := map[string]string{
		h.send("health", nil):            "health",
		h.send("capabilities.list", nil): "capabilities.list",
		h.send("workspace.info", nil):    "workspace.info",
		h.send("policy.get", map[string]any{"origin": "https://chat.example"}):            "policy.get",
		h.send("relay.fetch", map[string]any{"url": "https://relay.invalid/v1"}):          "relay.fetch",
		h.send("execute", executeParams("other.echo", map[string]any{"other": true}, "")): "other.echo",
		h.send("cancel", map[string]any{"id": mustAtoi(t, cancelled)}):                    "cancel",
	}
	for id, what := range others {
		r := h.await(id)
		if what != "relay.fetch" && !r.OK { // the relay has no configuration here: any answer will do
			t.Errorf("%s failed while a provider does not read: %s", what, clip(r.raw))
		}
		if timedOut := h.countCode(stuckIDs, "TIMEOUT"); timedOut > 0 {
			t.Errorf("%s answered after %d executes to the stuck provider had timed out", what, timedOut)
		}
	}
	wantError(t, h.await(cancelled), "CANCELLED")
	// The server may still take the first request or two it had been
	// reading when it stopped.
	timedOut := 0
	for _, id := range stuckIDs[:len(stuckIDs)-1] {
		r := h.await(id)
		switch {
		case r.Code == "TIMEOUT":
			timedOut++
		case !r.OK:
			t.Fatalf("an execute to the stuck provider: %s; want TIMEOUT", clip(r.raw))
		}
	}
	if timedOut < len(stuckIDs)-3 {
		t.Errorf("%d of %d executes to the stuck provider timed out; the others ran", timedOut, len(stuckIDs)-1)
	}

	const flood = 5000
	ids := make([]string, flood)
	for i := range ids {
		ids[i] = h.send("execute", executeParams("computer.echo", map[string]any{"flood": i}, ""))
	}
	codes := map[string]int{}
	overloaded := ""
	for _, id := range ids {
		r := h.await(id)
		codes[r.Code]++
		if r.Code == "OVERLOADED" {
			overloaded = r.Message
		}
	}
	t.Logf("flood of %d: %v", flood, codes)
	if codes["OVERLOADED"] == 0 || codes["OVERLOADED"]+codes["TIMEOUT"] != flood {
		t.Errorf("flood outcomes %v; want OVERLOADED and TIMEOUT only, some OVERLOADED", codes)
	}
	if !strings.Contains(overloaded, "not reading its input") {
		t.Errorf("OVERLOADED says %q; want the reason", overloaded)
	}
	wantOK(t, h.execute("other.echo", map[string]any{"after": "flood"}))
	var hr healthReply
	h.call("health", nil).field(t, "providers", &hr.Providers)
	if providerState(hr, "munim") != "ready" {
		t.Errorf("munim %q after the flood; a server that does not read is not dead", providerState(hr, "munim"))
	}
}

// countCode counts the replies received so far to ids that failed with code,
// without consuming them.
func (h *host) countCode(ids []string, code string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, id := range ids {
		for _, r := range h.replies[id] {
			if r.Code == code {
				n++
			}
		}
	}
	return n
}

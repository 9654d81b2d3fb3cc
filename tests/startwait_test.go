package tests

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/testshort"
)

// delayFirstStart makes the fake's next start (the first, here) wait ms
// before it serves: a server that is slow to start.
func (f *fake) delayFirstStart(ms string) {
	f.t.Helper()
	writeFile(f.t, filepath.Join(f.state, "next-start-delay-ms"), []byte(ms))
}

// TestACallSentRightAfterStartWaitsForTheProvider: the first call, sent the
// moment the host starts (as after a browser or service-worker restart),
// waits for a provider that takes 1.5 s to start and then runs.
func TestACallSentRightAfterStartWaitsForTheProvider(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	f.delayFirstStart("1500")
	h := startHost(t, hostOptions{config: standardConfig(f)})
	first := h.send("execute", executeParams("computer.echo", map[string]any{"first": true}, ""))
	var hr healthReply
	json.Unmarshal(h.call("health", nil).raw, &hr)
	if providerState(hr, "munim") != "starting" {
		t.Logf("munim was %q already when health answered; the call may not have waited", providerState(hr, "munim"))
	}
	wantOK(t, h.await(first))
	f.awaitCall("the first echo", func(e callEntry) bool { return e.Tool == "echo" })
}

// TestACallForAProviderThatNeverStartsIsRefusedWithTheReason: a server that
// never finishes starting makes a waiting call fail PROVIDER_UNAVAILABLE once
// its startTimeout has passed, saying why, in the server's own words too.
func TestACallForAProviderThatNeverStartsIsRefusedWithTheReason(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	f.delayFirstStart("600000")
	cfg := standardConfig(f)
	// Long enough for the server to have said its words on a loaded machine (at 1 s, a fresh clone's
	// CI run saw the timeout come before the server's first stderr line).
	cfg.Providers[0].StartTimeout = "5s"
	h := startHost(t, hostOptions{config: cfg})
	r := h.execute("computer.echo", map[string]any{"never": true})
	wantError(t, r, "PROVIDER_UNAVAILABLE")
	for _, want := range []string{"did not answer initialize within 5s (startTimeout)", "delaying start by 600000 ms"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("message %q does not say %q", r.Message, want)
		}
	}
	stillServing(t, h)
}

// TestACallWaitingForAStartingProviderCanBeCancelled.
func TestACallWaitingForAStartingProviderCanBeCancelled(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	f.delayFirstStart("600000")
	h := startHost(t, hostOptions{config: standardConfig(f)})
	waiting := h.send("execute", executeParams("computer.echo", map[string]any{"cancelled": true}, ""))
	c := h.call("cancel", map[string]any{"id": mustAtoi(t, waiting)})
	wantOK(t, c)
	var found bool
	c.field(t, "found", &found)
	if !found {
		t.Fatalf("cancel did not find the waiting call: %s", c.raw)
	}
	wantError(t, h.await(waiting), "CANCELLED")
	stillServing(t, h)
}

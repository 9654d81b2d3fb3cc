package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/host/session"
	"github.com/gnosis/gnosis/internal/testshort"
)

// progressEvent is the payload of a progress event (docs/protocol.md).
type progressEvent struct {
	ID       json.RawMessage `json:"id"`
	Event    string          `json:"event"`
	Progress float64         `json:"progress"`
	Total    *float64        `json:"total"`
	Message  *string         `json:"message"`
}

// progressOf returns the progress events of the request whose id marshals
// to key, among those received after mark, failing on a malformed one.
func progressOf(t *testing.T, h *host, mark int, key string) []progressEvent {
	t.Helper()
	var out []progressEvent
	for _, e := range h.eventsSince(mark) {
		if e.Event != "progress" || string(e.ID) != key {
			continue
		}
		if !bytes.HasPrefix(e.raw, []byte(`{"id":`+key+`,"event":"progress",`)) {
			t.Errorf("a progress event starts with its request's id and \"event\": %s", e.raw)
		}
		var p progressEvent
		if err := json.Unmarshal(e.raw, &p); err != nil {
			t.Fatalf("progress event %s: %v", e.raw, err)
		}
		var fields map[string]json.RawMessage
		json.Unmarshal(e.raw, &fields)
		if _, ok := fields["ok"]; ok {
			t.Errorf("a progress event has no \"ok\": %s", e.raw)
		}
		out = append(out, p)
	}
	return out
}

// settled fails if progress events of key arrived after its reply. The
// anchor is a later call through the same provider: its reply proves the host
// has read and handled everything the provider sent before it, and, lasting
// longer than ProgressInterval, that a coalesced report held back for key
// would have gone out by then.
func settled(t *testing.T, h *host, mark int, key string, seen int) {
	t.Helper()
	wantOK(t, h.execute("computer.progress", map[string]any{"steps": 2, "delay_ms": 2 * session.ProgressInterval.Milliseconds()}))
	if n := len(progressOf(t, h, mark, key)); n != seen {
		t.Errorf("%d progress events arrived after the reply", n-seen)
	}
}

func TestProgressEventsArriveInOrderBeforeTheReply(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	mark := h.eventMark()
	// 120 ms apart, slower than the coalescing interval, so each report
	// usually becomes its own event. On a loaded machine two reports can
	// reach the host within one interval, and the older one is then
	// replaced (the coalescer's own tests, with a clock, pin that down), so
	// this asserts what holds however the reports are timed: the events are
	// reports in their order, the last report is among them, and none
	// comes after the reply.
	h.sendID("p1", "execute", executeParams("computer.progress", map[string]any{"steps": 4, "delay_ms": 120, "message": "step"}, ""))
	r := h.await(`"p1"`)
	wantOK(t, r)
	got := progressOf(t, h, mark, `"p1"`)
	four := 4.0
	var want []progressEvent
	for _, e := range got {
		n := int(e.Progress)
		s := fmt.Sprintf("step %d", n)
		want = append(want, progressEvent{ID: json.RawMessage(`"p1"`), Event: "progress", Progress: float64(n), Total: &four, Message: &s})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress events are not the server's reports (-want +got):\n%s", diff)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Progress <= got[i-1].Progress {
			t.Errorf("event %d reports %v after %v: out of order", i, got[i].Progress, got[i-1].Progress)
		}
	}
	if len(got) == 0 || got[len(got)-1].Progress != 4 {
		t.Errorf("the last report (4 of 4) did not arrive before the reply: %+v", got)
	}
	settled(t, h, mark, `"p1"`, len(got))
}

func TestChattyProgressIsCoalescedAndTheLastReportDelivered(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	mark := h.eventMark()
	const steps = 20000
	start := time.Now()
	// A string id: the client numbers its own requests (the health polls of a slow start
	// among them), so a number could be the id of settled's later call.
	h.sendID("chatty", "execute", executeParams("computer.progress", map[string]any{"steps": steps}, ""))
	wantOK(t, h.await(`"chatty"`))
	elapsed := time.Since(start)
	got := progressOf(t, h, mark, `"chatty"`)
	if len(got) == 0 {
		t.Fatal("no progress events")
	}
	// At most one per 50 ms, plus the first and the last.
	if limit := int(elapsed/(50*time.Millisecond)) + 2; len(got) > limit {
		t.Errorf("%d progress events in %v, want at most %d (about 20 a second)", len(got), elapsed, limit)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Progress <= got[i-1].Progress {
			t.Errorf("event %d: progress %v after %v: out of order", i, got[i].Progress, got[i-1].Progress)
		}
	}
	if last := got[len(got)-1]; last.Progress != steps || last.Total == nil || *last.Total != steps {
		t.Errorf("the last event is %+v, want the last report (%d of %d)", last, steps, steps)
	}
	settled(t, h, mark, `"chatty"`, len(got))
}

func TestEveryToolCallCarriesAProgressToken(t *testing.T) {
	testshort.Parallel(t)
	// Without a token fakemunim's progress tool answers "no progress token".
	h, _ := startStandard(t)
	r := h.execute("computer.progress", map[string]any{"steps": 0})
	wantOK(t, r)
	if !bytes.Contains(r.Result, []byte("done 0 steps")) {
		t.Errorf("the call carried no progress token: %s", r.Result)
	}
}

package tests

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/gnosis/gnosis/internal/testshort"
)

// TestSlowCallDoesNotBlockOthers: with a call that only ends when cancelled
// in flight, many other requests are answered, each with its own result;
// the slow one is answered last, so replies come out of request order.
func TestSlowCallDoesNotBlockOthers(t *testing.T) {
	testshort.Parallel(t)
	h, f := startStandard(t)
	slow := h.send("execute", executeParams("computer.slow", map[string]any{"ms": 600000, "tag": "blocker"}, ""))
	f.awaitStarted("blocker")

	const n = 60
	ids := map[string]int{}
	for i := 0; i < n; i++ {
		var id string
		switch i % 3 {
		case 0:
			id = h.send("execute", executeParams("computer.echo", map[string]any{"i": i}, ""))
		case 1:
			id = h.send("capabilities.describe", map[string]any{"name": "computer.click"})
		default:
			id = h.send("health", nil)
		}
		ids[id] = i
	}
	for id, i := range ids {
		r := h.await(id)
		wantOK(t, r)
		if i%3 == 0 {
			var res struct {
				StructuredContent map[string]any `json:"structuredContent"`
			}
			json.Unmarshal(r.Result, &res)
			if got := res.StructuredContent["i"]; got != float64(i) {
				t.Errorf("reply to %s carries i=%v, want %d", id, got, i)
			}
		}
	}
	if h.has(slow) {
		t.Fatalf("the slow call was answered before it was cancelled: %s", clip(h.await(slow).raw))
	}
	c := h.call("cancel", map[string]any{"id": mustAtoi(t, slow)})
	wantOK(t, c)
	wantError(t, h.await(slow), "CANCELLED")
}

// TestManyConcurrentSlowCalls: calls of different lengths sent together all
// complete; the short ones are not held behind the long ones.
func TestManyConcurrentSlowCalls(t *testing.T) {
	testshort.Parallel(t)
	h, f := startStandard(t)
	long := h.send("execute", executeParams("computer.slow", map[string]any{"ms": 600000, "tag": "long"}, ""))
	f.awaitStarted("long")
	var ids []string
	for i := 0; i < 20; i++ {
		ids = append(ids, h.send("execute", executeParams("computer.slow", map[string]any{"ms": 10 * (i % 5), "tag": fmt.Sprintf("s%d", i)}, "")))
	}
	for _, id := range ids {
		wantOK(t, h.await(id))
	}
	if h.has(long) {
		t.Fatal("the long call finished early")
	}
	wantOK(t, h.call("cancel", map[string]any{"id": mustAtoi(t, long)}))
	wantError(t, h.await(long), "CANCELLED")
}

// TestCancel: cancelling a call in flight answers the cancel with ok, ends
// the call with CANCELLED, and the MCP server sees notifications/cancelled
// (fakemunim logs the call as cancelled). String ids work too.
func TestCancel(t *testing.T) {
	testshort.Parallel(t)
	h, f := startStandard(t)
	h.sendID("slow-1", "execute", executeParams("computer.slow", map[string]any{"ms": 600000, "tag": "tocancel"}, ""))
	f.awaitStarted("tocancel")
	h.sendID("c-1", "cancel", map[string]any{"id": "slow-1"})
	c := h.await(`"c-1"`)
	wantOK(t, c)
	var found bool
	c.field(t, "found", &found)
	if !found {
		t.Errorf("cancel of a request in flight says not found: %s", c.raw)
	}
	wantError(t, h.await(`"slow-1"`), "CANCELLED")
	f.awaitCall("the slow call as cancelled", func(e callEntry) bool { return e.Tool == "slow" && e.Cancelled })
	// A second cancel of the same id finds nothing in flight.
	h.sendID("c-2", "cancel", map[string]any{"id": "slow-1"})
	c2 := h.await(`"c-2"`)
	wantOK(t, c2)
	c2.field(t, "found", &found)
	if found {
		t.Errorf("cancel of a finished request says found: %s", c2.raw)
	}
	wantOK(t, h.execute("computer.echo", map[string]any{"after": "cancel"}))
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

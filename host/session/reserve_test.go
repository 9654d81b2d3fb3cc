package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/budget"
	"github.com/gnosis/gnosis/internal/testwait"
)

// TestRepliesReservedPastTheLimitWaitTheirTurn: methods that reserve their
// reply's bytes (budget.Reserve) before building it run only as many at a
// time as the in-flight budget holds; the others wait (health still
// answers), go on as replies are written, and every one is answered.
func TestRepliesReservedPastTheLimitWaitTheirTurn(t *testing.T) {
	const limit, reply, n = 1 << 20, 400 << 10, 5
	g := newGate()
	big := func(ctx context.Context, c *Call) (any, error) {
		if err := budget.Reserve(ctx, reply); err != nil {
			return nil, err
		}
		if _, err := g.method(ctx, c); err != nil {
			return nil, err
		}
		return map[string]string{"data": strings.Repeat("r", reply-100)}, nil
	}
	h := startHost(t, WithMaxInflightBytes(limit), WithMethod("big", big))
	for i := range n {
		h.send(fmt.Sprintf(`{"id":%d,"method":"big"}`, i))
	}
	// Two replies fit and begin; the other three wait for room. (A method
	// whose reservation went through may not have begun yet: both are
	// waited for.)
	testwait.Until(t, 10*time.Second, func() error {
		if w := h.s.replies.Waiting(); w != n-2 {
			return fmt.Errorf("%d reservations wait, want %d", w, n-2)
		}
		if got := len(g.started); got != 2 {
			return fmt.Errorf("%d methods began building their replies with room for 2", got)
		}
		return nil
	})
	if got := h.call(`{"id":"h","method":"health"}`); got["ok"] != true {
		t.Errorf("health while replies wait: %v", got)
	}
	close(g.release)
	seen := map[any]any{}
	for range n {
		m := h.next()
		seen[m["id"]] = m["ok"]
	}
	if diff := cmp.Diff(map[any]any{0.0: true, 1.0: true, 2.0: true, 3.0: true, 4.0: true}, seen); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
	h.awaitHeld(0)
	if held := h.s.replies.Held(); held != 0 {
		t.Errorf("%d reply bytes still reserved after every reply", held)
	}
}

// TestAReservationThatWaitsIsCancelled: cancel ends a method waiting for
// room, and its bytes are never counted.
func TestAReservationThatWaitsIsCancelled(t *testing.T) {
	g := newGate()
	big := func(ctx context.Context, c *Call) (any, error) {
		if err := budget.Reserve(ctx, 800<<10); err != nil {
			return nil, err
		}
		return g.method(ctx, c)
	}
	h := startHost(t, WithMaxInflightBytes(1<<20), WithMethod("big", big))
	h.send(`{"id":1,"method":"big"}`)
	g.await(t, "1")
	h.send(`{"id":2,"method":"big"}`)
	testwait.Until(t, 10*time.Second, func() error {
		if h.s.replies.Waiting() != 1 {
			return fmt.Errorf("the second reservation does not wait")
		}
		return nil
	})
	h.send(`{"id":"c","method":"cancel","params":{"id":2}}`)
	got := map[any]map[string]any{} // the two replies, in either order
	for range 2 {
		m := h.next()
		got[m["id"]] = pick(m, "ok", "found", "code")
	}
	want := map[any]map[string]any{"c": {"ok": true, "found": true}, 2.0: {"ok": false, "code": "CANCELLED"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cancel and the waiting request (-want +got):\n%s", diff)
	}
	close(g.release)
	h.next()
	h.awaitHeld(0)
	if held := h.s.replies.Held(); held != 0 {
		t.Errorf("%d reply bytes still reserved after every reply", held)
	}
}

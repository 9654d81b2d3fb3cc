package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/host/framing"
	"github.com/gnosis/gnosis/internal/testwait"
)

// gate is a method that blocks until the test releases it: each call
// reports its id on started, then waits for release (or its cancellation).
type gate struct {
	started chan string
	release chan struct{}
}

func newGate() *gate {
	return &gate{started: make(chan string, 16), release: make(chan struct{})}
}

func (g *gate) method(ctx context.Context, c *Call) (any, error) {
	g.started <- string(c.ID)
	select {
	case <-g.release:
		return nil, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// await returns once the call with id (its JSON text) has started.
func (g *gate) await(t *testing.T, id string) {
	t.Helper()
	select {
	case got := <-g.started:
		if got != id {
			t.Fatalf("call %s started, want %s", got, id)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("call %s never started", id)
	}
}

// padded is a request to method whose params carry n bytes of padding.
// idLast puts the id after the params, where a reader that only looked at
// the start of the body would miss it.
func padded(id, method string, n int, idLast bool) string {
	params := fmt.Sprintf(`{"pad":"%s"}`, strings.Repeat("x", n))
	if idLast {
		return fmt.Sprintf(`{"method":%q,"params":%s,"id":%q}`, method, params, id)
	}
	return fmt.Sprintf(`{"id":%q,"method":%q,"params":%s}`, id, method, params)
}

// awaitHeld waits until the session's in-flight total is want: bytes are
// given back right after a reply is written, so just after the client read it.
func (h *host) awaitHeld(want int64) {
	h.t.Helper()
	testwait.Until(h.t, 10*time.Second, func() error {
		if got := h.s.bytes.Held(); got != want {
			return fmt.Errorf("in-flight bytes = %d, want %d", got, want)
		}
		return nil
	})
}

func TestRequestsPastTheInflightLimitAreOverloaded(t *testing.T) {
	const limit = 1 << 20
	g := newGate()
	h := startHost(t, WithMaxInflightBytes(limit), WithMethod("hold", g.method))

	a := padded("a", "hold", 400<<10, false)
	h.send(a)
	g.await(t, `"a"`)
	if held := h.s.bytes.Held(); held < int64(len(a)) {
		t.Errorf("in-flight bytes with one request of %d bytes running = %d", len(a), held)
	}
	h.send(padded("b", "hold", 400<<10, false))
	g.await(t, `"b"`)

	h.send(padded("c", "hold", 400<<10, true))
	got := h.next()
	if diff := cmp.Diff(map[string]any{"id": "c", "ok": false, "code": "OVERLOADED"}, pick(got, "id", "ok", "code")); diff != "" {
		t.Errorf("third big request (-want +got):\n%s", diff)
	}
	got = h.call(`{"id":"h","method":"health"}`)
	if diff := cmp.Diff(map[string]any{"id": "h", "ok": true}, pick(got, "id", "ok")); diff != "" {
		t.Errorf("health while overloaded (-want +got):\n%s", diff)
	}
	h.send(`{"id":"d","method":"hold"}`)
	g.await(t, `"d"`)

	close(g.release)
	replies := map[any]any{}
	for range 3 {
		m := h.next()
		replies[m["id"]] = m["ok"]
	}
	if diff := cmp.Diff(map[any]any{"a": true, "b": true, "d": true}, replies); diff != "" {
		t.Errorf("replies once released (-want +got):\n%s", diff)
	}
	h.awaitHeld(0)

	got = h.call(padded("c", "hold", 400<<10, true))
	if diff := cmp.Diff(map[string]any{"id": "c", "ok": true}, pick(got, "id", "ok")); diff != "" {
		t.Errorf("the refused request sent again once the others ended (-want +got):\n%s", diff)
	}
	<-g.started
}

func TestRequestAboveTheInflightLimitOnItsOwnIsOverloaded(t *testing.T) {
	h := startHost(t, WithMaxInflightBytes(1<<20))
	got := h.call(padded("huge", "health", 1<<20, true))
	if diff := cmp.Diff(map[string]any{"id": "huge", "ok": false, "code": "OVERLOADED"}, pick(got, "id", "ok", "code")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if msg, _ := got["message"].(string); !strings.Contains(msg, "on its own") {
		t.Errorf("message %q does not say the request alone is too large", msg)
	}
	got = h.call(padded("fits", "health", 1000, false))
	if diff := cmp.Diff(map[string]any{"id": "fits", "ok": true}, pick(got, "id", "ok")); diff != "" {
		t.Errorf("next request (-want +got):\n%s", diff)
	}
	h.awaitHeld(0)
}

func TestOverloadedWithoutAValidIDIsAnsweredToNull(t *testing.T) {
	h := startHost(t, WithMaxInflightBytes(1024))
	got := h.call(`{"id":[1],"method":"health","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`)
	if diff := cmp.Diff(map[string]any{"id": nil, "ok": false, "code": "OVERLOADED"}, pick(got, "id", "ok", "code")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got = h.call(`{"id":2,"method":"health"}`)
	if diff := cmp.Diff(map[string]any{"id": 2.0, "ok": true}, pick(got, "id", "ok")); diff != "" {
		t.Errorf("the stream lost sync after a refused frame (-want +got):\n%s", diff)
	}
}

// TestInflightBytesAreGivenBackHoweverARequestEnds: success, failure,
// panic and cancellation all return the request's bytes to the budget.
func TestInflightBytesAreGivenBackHoweverARequestEnds(t *testing.T) {
	g := newGate()
	h := startHost(t, WithMaxInflightBytes(1<<20),
		WithMethod("hold", g.method),
		WithMethod("fail", func(context.Context, *Call) (any, error) { return nil, errors.New("no luck") }),
		WithMethod("boom", func(context.Context, *Call) (any, error) { panic("boom") }),
	)
	for _, tt := range []struct {
		method, code string
	}{
		{"fail", "EXECUTION_ERROR"},
		{"boom", "EXECUTION_ERROR"},
		{"capabilities.list", ""},
		{"nosuch", "UNKNOWN_METHOD"},
	} {
		got := h.call(padded(tt.method, tt.method, 600<<10, false))
		want := map[string]any{"id": tt.method, "ok": tt.code == ""}
		if tt.code != "" {
			want["code"] = tt.code
		}
		if diff := cmp.Diff(want, pick(got, "id", "ok", "code")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.method, diff)
		}
		h.awaitHeld(0)
	}

	h.send(padded("held", "hold", 600<<10, false))
	g.await(t, `"held"`)
	h.send(`{"id":"cancel","method":"cancel","params":{"id":"held"}}`)
	replies := map[any]any{}
	for range 2 {
		m := h.next()
		replies[m["id"]] = m["code"]
	}
	if diff := cmp.Diff(map[any]any{"cancel": nil, "held": "CANCELLED"}, replies); diff != "" {
		t.Errorf("cancel (-want +got):\n%s", diff)
	}
	h.awaitHeld(0)
}

func TestInputEndingInsideARefusedFrameEndsTheSession(t *testing.T) {
	h := startHost(t, WithMaxInflightBytes(100))
	hdr := make([]byte, 4)
	framing.Order.PutUint32(hdr, 1000)
	h.in.Write(append(hdr, `{"id":1,"method":"health","params":{"pad":"xx`...))
	h.in.Close()
	select {
	case err := <-h.served:
		if err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
		h.served <- err // for the cleanup
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return")
	}
}

func TestDefaultInflightLimitIsTheConfigurationDefault(t *testing.T) {
	if got := New().bytes.Limit(); got != config.DefaultInflightBytes {
		t.Errorf("session default %d, configuration default %d", got, config.DefaultInflightBytes)
	}
	if got := New(WithMaxInflightBytes(0)).bytes.Limit(); got != config.DefaultInflightBytes {
		t.Errorf("WithMaxInflightBytes(0) gives %d, want the default %d", got, config.DefaultInflightBytes)
	}
}

func TestIDScannerFindsTheTopLevelID(t *testing.T) {
	for _, tt := range []struct {
		name, body, want string
	}{
		{"number first", `{"id":7,"method":"x"}`, `7`},
		{"string last", `{"method":"x","params":{"id":1,"s":"}\",{"},"id":"a,b}"}`, `"a,b}"`},
		{"spaces around", " { \"id\" :\t-1.5e3 , \"method\":\"x\"}\n", `-1.5e3`},
		{"escaped key", `{"\u0069d":"x"}`, `"x"`},
		{"last of repeated", `{"id":1,"id":2}`, `2`},
		{"nested id only", `{"params":{"id":1}}`, ``},
		{"id in array", `{"a":[{"id":1}],"b":["id",2]}`, ``},
		{"key id in a string value", `{"m":"\"id\":3"}`, ``},
		{"null id", `{"id":null}`, ``},
		{"object id", `{"id":{"a":1}}`, ``},
		{"too long", `{"id":"` + strings.Repeat("a", MaxIDLength) + `"}`, ``},
		{"longest", `{"id":"` + strings.Repeat("a", MaxIDLength-2) + `"}`, `"` + strings.Repeat("a", MaxIDLength-2) + `"`},
		{"number out of range", `{"id":1e1000}`, ``},
		{"unclosed", `{"id":1,"params":{`, ``},
		{"not an object", `["id",1]`, ``},
		{"trailing text", `{"id":1}x`, ``},
		{"invalid UTF-8 in the id", "{\"id\":\"\xff\"}", ``},
		{"long key", `{"` + strings.Repeat("i", 100) + `":1,"id":2}`, `2`},
	} {
		for _, piece := range []int{1, 2, 3, len(tt.body)} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, piece), func(t *testing.T) {
				var sc idScanner
				for b := []byte(tt.body); len(b) > 0; {
					n := min(piece, len(b))
					sc.Write(b[:n])
					b = b[n:]
				}
				if got := string(sc.ID()); got != tt.want {
					t.Errorf("id %q, want %q", got, tt.want)
				}
			})
		}
	}
}

// FuzzIDScanner: whenever DecodeRequest finds a valid id in a body, the
// streaming scanner finds the same one, however the body is split; and what
// the scanner returns is always a valid id.
func FuzzIDScanner(f *testing.F) {
	f.Add([]byte(`{"id":1,"method":"health"}`), uint16(3))
	f.Add([]byte(`{"method":"x","params":{"id":1,"s":"}\",{"},"id":"a,b}"}`), uint16(20))
	f.Add([]byte(`{"\u0069d":"x","id" : 2 }`), uint16(7))
	f.Add([]byte(`{"id":"\\\"","params":[{"}":"]"}]}`), uint16(0))
	f.Fuzz(func(t *testing.T, body []byte, split uint16) {
		var sc idScanner
		k := int(split) % (len(body) + 1)
		sc.Write(body[:k])
		sc.Write(body[k:])
		got := sc.ID()
		if req, _ := DecodeRequest(body); req.ID != nil && string(got) != string(req.ID) {
			t.Fatalf("scanner id %q, DecodeRequest id %q", got, req.ID)
		}
		if got != nil {
			if _, err := decodeID(got); err != nil {
				t.Fatalf("scanner returned invalid id %q: %v", got, err)
			}
		}
	})
}

// BenchmarkIDScanner measures the reading of a refused request's body: a
// 16 MiB string in params with the id after it.
func BenchmarkIDScanner(b *testing.B) {
	body := []byte(`{"method":"relay.fetch","params":{"body":"` + strings.Repeat("QUJD", 4<<20) + `"},"id":"x"}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var sc idScanner
		sc.Write(body)
		if sc.ID() == nil {
			b.Fatal("no id")
		}
	}
}

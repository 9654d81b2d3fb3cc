package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/host/framing"
	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
)

// pick keeps only the named keys of a reply, so expectations state what
// matters and leave out human-oriented text.
func pick(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

func TestRequestsAndReplies(t *testing.T) {
	tests := []struct {
		name    string
		request string
		keys    []string
		want    map[string]any
	}{
		{
			name:    "health reports the service, version, protocol and providers",
			request: `{"id":1,"method":"health"}`,
			keys:    []string{"id", "ok", "status", "service", "version", "protocol", "capabilities", "providers"},
			want: map[string]any{"id": 1.0, "ok": true, "status": "ok", "service": "Agent Capability Runtime", "version": "1.2.3", "protocol": 2.0,
				"capabilities": 6.0, "providers": []any{map[string]any{"name": "toy", "prefix": "toy", "state": "ready", "capabilities": 4.0}}},
		},
		{
			name:    "capabilities.list is sorted and includes the meta-capabilities",
			request: `{"id":"l","method":"capabilities.list","params":{}}`,
			keys:    []string{"id", "ok", "names"},
			want: map[string]any{"id": "l", "ok": true,
				"names": []any{"capabilities.describe", "capabilities.list", "toy.big", "toy.echo", "toy.fail", "toy.slow"}},
		},
		{
			name:    "describe returns the schema as the provider sent it",
			request: `{"id":2,"method":"capabilities.describe","params":{"name":"toy.echo"}}`,
			keys:    []string{"id", "ok", "name", "description", "inputSchema"},
			want: map[string]any{"id": 2.0, "ok": true, "name": "toy.echo", "description": "Echo text.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []any{"text"}}},
		},
		{
			name:    "describe of an unknown capability",
			request: `{"id":3,"method":"capabilities.describe","params":{"name":"toy.nope"}}`,
			keys:    []string{"id", "ok", "error", "code"},
			want:    map[string]any{"id": 3.0, "ok": false, "error": true, "code": "CAPABILITY_NOT_FOUND"},
		},
		{
			name:    "describe without a name",
			request: `{"id":4,"method":"capabilities.describe"}`,
			keys:    []string{"id", "code"},
			want:    map[string]any{"id": 4.0, "code": "INVALID_REQUEST"},
		},
		{
			name:    "execute returns the tool result",
			request: `{"id":5,"method":"execute","params":{"capability":"toy.echo","arguments":{"text":"hi <b>"}}}`,
			keys:    []string{"id", "ok", "capability", "result"},
			want: map[string]any{"id": 5.0, "ok": true, "capability": "toy.echo",
				"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "hi <b>"}}}},
		},
		{
			name:    "execute of a meta-capability",
			request: `{"id":6,"method":"execute","params":{"capability":"capabilities.describe","arguments":{"name":"toy.slow"}}}`,
			keys:    []string{"id", "ok", "capability", "result"},
			want: map[string]any{"id": 6.0, "ok": true, "capability": "capabilities.describe",
				"result": map[string]any{"name": "toy.slow", "description": "Wait until cancelled.", "inputSchema": map[string]any{"type": "object"}}},
		},
		{
			name:    "execute with arguments violating the schema",
			request: `{"id":7,"method":"execute","params":{"capability":"toy.echo","arguments":{"text":5}}}`,
			keys:    []string{"id", "ok", "code"},
			want:    map[string]any{"id": 7.0, "ok": false, "code": "INVALID_ARGUMENTS"},
		},
		{
			name:    "a tool error is EXECUTION_ERROR with the result as details",
			request: `{"id":8,"method":"execute","params":{"capability":"toy.fail"}}`,
			keys:    []string{"id", "code", "details"},
			want: map[string]any{"id": 8.0, "code": "EXECUTION_ERROR",
				"details": map[string]any{"content": []any{map[string]any{"type": "text", "text": "no window"}}, "isError": true}},
		},
		{
			name:    "execute without a capability",
			request: `{"id":9,"method":"execute","params":{"arguments":{}}}`,
			keys:    []string{"id", "code"},
			want:    map[string]any{"id": 9.0, "code": "INVALID_REQUEST"},
		},
		{
			name:    "execute of an unknown capability",
			request: `{"id":10,"method":"execute","params":{"capability":"toy.nothing"}}`,
			keys:    []string{"id", "code"},
			want:    map[string]any{"id": 10.0, "code": "CAPABILITY_NOT_FOUND"},
		},
		{
			name:    "execute for a prefix no provider has",
			request: `{"id":11,"method":"execute","params":{"capability":"other.thing"}}`,
			keys:    []string{"id", "code"},
			want:    map[string]any{"id": 11.0, "code": "PROVIDER_NOT_FOUND"},
		},
		{
			name:    "unknown method",
			request: `{"id":"u","method":"tools/list"}`,
			keys:    []string{"id", "ok", "error", "code"},
			want:    map[string]any{"id": "u", "ok": false, "error": true, "code": "UNKNOWN_METHOD"},
		},
		{
			name:    "cut-short JSON is answered under the id it carries",
			request: `{"id":1,"method":`,
			keys:    []string{"id", "code", "message"},
			want:    map[string]any{"id": 1.0, "code": "INVALID_REQUEST", "message": "request must be a JSON object"},
		},
		{
			name:    "nesting past the bound is answered under the request's id",
			request: `{"id":"deep","method":"execute","params":{"arguments":` + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001) + `}}`,
			keys:    []string{"id", "code", "message"},
			want:    map[string]any{"id": "deep", "code": "INVALID_REQUEST", "message": "request is nested deeper than 10000 levels (at byte 10052)"},
		},
		{
			name:    "invalid UTF-8 is answered under the request's id",
			request: "{\"id\":42,\"method\":\"execute\",\"params\":{\"arguments\":{\"s\":\"\xff\"}}}",
			keys:    []string{"id", "code", "message"},
			want:    map[string]any{"id": 42.0, "code": "INVALID_REQUEST", "message": "request is not valid UTF-8 (byte 56 is not)"},
		},
		{
			name:    "text that is not JSON at all gets id null",
			request: `hello`,
			keys:    []string{"id", "code"},
			want:    map[string]any{"id": nil, "code": "INVALID_REQUEST"},
		},
		{
			name:    "an array gets id null",
			request: `[1,2]`,
			keys:    []string{"id", "code"},
			want:    map[string]any{"id": nil, "code": "INVALID_REQUEST"},
		},
		{
			name:    "an object id gets id null",
			request: `{"id":{"a":1},"method":"health"}`,
			keys:    []string{"id", "code"},
			want:    map[string]any{"id": nil, "code": "INVALID_REQUEST"},
		},
		{
			name:    "a missing method is answered to the id",
			request: `{"id":12}`,
			keys:    []string{"id", "code"},
			want:    map[string]any{"id": 12.0, "code": "INVALID_REQUEST"},
		},
		{
			name:    "params that are not an object",
			request: `{"id":13,"method":"health","params":[1]}`,
			keys:    []string{"id", "code"},
			want:    map[string]any{"id": 13.0, "code": "INVALID_REQUEST"},
		},
		{
			name:    "cancel of an id not in flight",
			request: `{"id":14,"method":"cancel","params":{"id":"nothing"}}`,
			keys:    []string{"id", "ok", "found"},
			want:    map[string]any{"id": 14.0, "ok": true, "found": false},
		},
		{
			name:    "cancel without an id",
			request: `{"id":15,"method":"cancel","params":{}}`,
			keys:    []string{"id", "code"},
			want:    map[string]any{"id": 15.0, "code": "INVALID_REQUEST"},
		},
	}
	h := startHost(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.t = t
			got := h.call(tt.request)
			if caps, ok := got["capabilities"].([]any); ok {
				var names []any
				for _, c := range caps {
					names = append(names, c.(map[string]any)["name"])
				}
				got["names"] = names
			}
			if diff := cmp.Diff(tt.want, pick(got, tt.keys...)); diff != "" {
				t.Errorf("reply to %s (-want +got):\n%s", tt.request, diff)
			}
			if got["ok"] == false && (got["message"] == nil || got["message"] == "") {
				t.Errorf("failure without a message: %v", got)
			}
		})
	}
}

func TestRequestsRunConcurrently(t *testing.T) {
	h := startHost(t)
	h.send(`{"id":"slow","method":"execute","params":{"capability":"toy.slow"}}`)
	<-h.toy.started // the slow call is running
	got := h.call(`{"id":"h","method":"health"}`)
	if diff := cmp.Diff(map[string]any{"id": "h", "ok": true}, pick(got, "id", "ok")); diff != "" {
		t.Errorf("health behind a slow call (-want +got):\n%s", diff)
	}
	h.send(`{"id":"c","method":"cancel","params":{"id":"slow"}}`)
	replies := map[any]map[string]any{}
	for len(replies) < 2 {
		m := h.next()
		replies[m["id"]] = m
	}
	want := map[any]map[string]any{
		"c":    {"id": "c", "ok": true, "found": true},
		"slow": {"id": "slow", "ok": false, "code": "CANCELLED"},
	}
	got2 := map[any]map[string]any{"c": pick(replies["c"], "id", "ok", "found"), "slow": pick(replies["slow"], "id", "ok", "code")}
	if diff := cmp.Diff(want, got2); diff != "" {
		t.Errorf("cancel (-want +got):\n%s", diff)
	}
}

func TestDuplicateIDInFlightIsRejected(t *testing.T) {
	h := startHost(t)
	h.send(`{"id":1,"method":"execute","params":{"capability":"toy.slow"}}`)
	<-h.toy.started
	got := h.call(`{"id":1,"method":"health"}`)
	if diff := cmp.Diff(map[string]any{"id": 1.0, "code": "INVALID_REQUEST"}, pick(got, "id", "code")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	h.send(`{"id":2,"method":"cancel","params":{"id":1}}`)
}

func TestLargeRepliesAreChunkedWithinTheLimit(t *testing.T) {
	for _, limit := range []int{1024, 4096, 1 << 20} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			h := startHost(t, WithMaxFrame(limit))
			n := 2*limit + 17
			got := h.call(fmt.Sprintf(`{"id":"big","method":"execute","params":{"capability":"toy.big","arguments":{"n":%d}}}`, n))
			want := map[string]any{"id": "big", "ok": true, "capability": "toy.big",
				"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": bigText(n)}}}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("reassembled reply differs (-want +got):\n%.2000s", diff)
			}
		})
	}
}

// TestRuntimeEventsComeAfterTheFirstReply: the provider's first discovery,
// queued before Serve started, reaches the client only after the reply to
// its first request, so a client that takes the first message as its reply
// (chrome.runtime.sendNativeMessage) gets it; later events come at once.
func TestRuntimeEventsComeAfterTheFirstReply(t *testing.T) {
	h := startHost(t)
	h.send(`{"id":1,"method":"health"}`)
	select {
	case first := <-h.msgs:
		if first["id"] != 1.0 || first["ok"] != true {
			t.Fatalf("first message = %v, want the reply to health", first)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no reply within 20 s")
	}
	got := []map[string]any{h.nextEvent("capabilities.changed")}
	h.toy.addTool("new")
	got = append(got, h.nextEvent("capabilities.changed"))
	want := []map[string]any{
		{"event": "capabilities.changed", "capabilities": 6.0},
		{"event": "capabilities.changed", "capabilities": 7.0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestForbiddenCallerGetsForbiddenForEverything(t *testing.T) {
	h := startHost(t, WithForbidden("caller chrome-extension://x/ is not a trusted extension"))
	for _, req := range []string{`{"id":1,"method":"health"}`, `{"id":2,"method":"execute","params":{"capability":"toy.echo"}}`, `nonsense`} {
		got := h.call(req)
		wantID := any(nil)
		if req != `nonsense` {
			var r struct{ ID float64 }
			json.Unmarshal([]byte(req), &r)
			wantID = r.ID
		}
		want := map[string]any{"id": wantID, "ok": false, "code": "FORBIDDEN", "message": "caller chrome-extension://x/ is not a trusted extension"}
		if diff := cmp.Diff(want, pick(got, "id", "ok", "code", "message")); diff != "" {
			t.Errorf("reply to %s (-want +got):\n%s", req, diff)
		}
	}
}

func TestExtensionMethods(t *testing.T) {
	progress := func(ctx context.Context, c *Call) (any, error) {
		var p struct{ Steps int }
		json.Unmarshal(c.Params, &p)
		for i := 0; i < p.Steps; i++ {
			if err := c.Emit(map[string]any{"event": "progress", "step": i}); err != nil {
				return nil, err
			}
		}
		return map[string]any{"done": p.Steps}, nil
	}
	h := startHost(t, WithMaxFrame(1024),
		WithMethod("relay.progress", progress),
		WithMethod("bad.array", func(context.Context, *Call) (any, error) { return []int{1}, nil }),
		WithMethod("bad.panic", func(context.Context, *Call) (any, error) { panic("boom") }),
		WithMethod("bad.event", func(_ context.Context, c *Call) (any, error) { return nil, c.Emit(map[string]any{"x": 1}) }),
		WithMethod("big.event", func(_ context.Context, c *Call) (any, error) {
			err := c.Emit(map[string]any{"event": "x", "data": strings.Repeat("a", 2000)})
			return map[string]bool{"refused": errors.Is(err, ErrEventTooLarge)}, nil
		}),
		WithMethod("custom.error", func(context.Context, *Call) (any, error) {
			return nil, &wire.Error{Code: wire.CodeTimeout, Message: "too slow", Details: map[string]int{"ms": 5}}
		}),
	)
	h.send(`{"id":"p","method":"relay.progress","params":{"steps":2}}`)
	var got []map[string]any
	for i := 0; i < 3; i++ {
		got = append(got, h.next())
	}
	want := []map[string]any{
		{"id": "p", "event": "progress", "step": 0.0},
		{"id": "p", "event": "progress", "step": 1.0},
		{"id": "p", "ok": true, "done": 2.0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events then reply (-want +got):\n%s", diff)
	}
	tests := []struct {
		req  string
		want map[string]any
	}{
		{`{"id":1,"method":"bad.array"}`, map[string]any{"id": 1.0, "code": "EXECUTION_ERROR"}},
		{`{"id":2,"method":"bad.panic"}`, map[string]any{"id": 2.0, "code": "EXECUTION_ERROR"}},
		{`{"id":3,"method":"bad.event"}`, map[string]any{"id": 3.0, "code": "EXECUTION_ERROR"}},
		{`{"id":4,"method":"custom.error"}`, map[string]any{"id": 4.0, "code": "TIMEOUT", "details": map[string]any{"ms": 5.0}}},
		{`{"id":5,"method":"big.event"}`, map[string]any{"id": 5.0, "refused": true}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, pick(h.call(tt.req), "id", "code", "details", "refused")); diff != "" {
			t.Errorf("reply to %s (-want +got):\n%s", tt.req, diff)
		}
	}
}

// TestTooLargeFrameIsAnsweredThenTheSessionEnds: the stream cannot be
// resynchronised after an oversized length, so the host answers and stops,
// without waiting for (or reading) the announced body.
func TestTooLargeFrameIsAnsweredThenTheSessionEnds(t *testing.T) {
	h := startHost(t, WithMaxInbound(100))
	hdr := make([]byte, 4)
	framing.Order.PutUint32(hdr, 101)
	h.in.Write(hdr)
	got := h.next()
	if diff := cmp.Diff(map[string]any{"id": nil, "ok": false, "error": true, "code": "MESSAGE_TOO_LARGE"}, pick(got, "id", "ok", "error", "code")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	select {
	case err := <-h.served:
		if err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
		h.served <- err // for the cleanup
	case <-time.After(2 * time.Second):
		t.Fatal("session kept serving after an oversized frame")
	}
}

// withClock replaces the shutdown grace's timer.
func withClock(after func(time.Duration) <-chan time.Time) Option {
	return func(s *Session) { s.after = after }
}

// At end of input the request in flight is cancelled, the runtime closed,
// and Serve returns as soon as that is done: on a clock whose grace never
// ends, so it cannot have returned by waiting the grace out.
func TestEndOfInputCancelsClosesAndReturnsQuickly(t *testing.T) {
	h := startHost(t, withClock(func(time.Duration) <-chan time.Time { return nil }))
	h.send(`{"id":"s","method":"execute","params":{"capability":"toy.slow"}}`)
	<-h.toy.started
	h.in.Close()
	select {
	case err := <-h.served:
		if err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
		h.served <- err
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after end of input (it waits for a grace that, here, never ends)")
	}
	if !h.toy.closed.Load() {
		t.Error("runtime (and its providers) not closed")
	}
	if got := pick(h.next(), "id", "code"); !cmp.Equal(got, map[string]any{"id": "s", "code": "CANCELLED"}) {
		t.Errorf("in-flight request ended with %v, want CANCELLED", got)
	}
}

func TestTruncatedLastFrameEndsTheSession(t *testing.T) {
	h := startHost(t)
	h.in.Write([]byte{50, 0, 0, 0, '{'})
	h.in.Close()
	select {
	case err := <-h.served:
		if err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
		h.served <- err
	case <-time.After(2 * time.Second):
		t.Fatal("Serve did not return")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestWriteFailureStopsTheSession(t *testing.T) {
	s := New()
	rt := runtime.New()
	inR, inW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), rt, inR, failingWriter{}) }()
	framing.Write(inW, []byte(`{"id":1,"method":"health"}`))
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "writing reply") {
			t.Errorf("Serve = %v, want a write error", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("session kept reading after its output failed")
	}
	inW.Close()
}

// rawRuntime serves one capability whose schema has formatting and
// characters encoding/json would rewrite, to check describe sends it as is.
type rawRuntime struct{ Runtime }

const oddSchema = "{ \"type\": \"object\",\n  \"description\": \"<tag> & \\u00e9\" }"

func (rawRuntime) Describe(name string) (runtime.Capability, error) {
	return runtime.Capability{Name: name, Description: "a <b> tool", InputSchema: json.RawMessage(oddSchema)}, nil
}
func (rawRuntime) Close() error { return nil }

func TestDescribeSendsTheSchemaByteForByte(t *testing.T) {
	s := New()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go s.Serve(context.Background(), rawRuntime{}, inR, outW)
	defer inW.Close()
	framing.Write(inW, []byte(`{"id":1,"method":"capabilities.describe","params":{"name":"x.y"}}`))
	got, err := framing.NewReader(outR, 0).Read()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":1,"ok":true,"name":"x.y","description":"a <b> tool","inputSchema":` + oddSchema + `}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestShutdownIsBoundedWhenNobodyReads: a browser that stops reading must
// not keep the host alive after it closed our input: Serve waits for the
// replies no longer than the grace (ShutdownGrace, on the test's clock),
// and returns once it ends.
func TestShutdownIsBoundedWhenNobodyReads(t *testing.T) {
	asked := make(chan time.Duration, 1)
	graceOver := make(chan time.Time)
	s := New(withClock(func(d time.Duration) <-chan time.Time { asked <- d; return graceOver }))
	inR, inW := io.Pipe()
	_, outW := io.Pipe() // never read: every write blocks
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), runtime.New(), inR, outW) }()
	framing.Write(inW, []byte(`{"id":1,"method":"health"}`))
	framing.Write(inW, []byte(`{"id":2,"method":"health"}`))
	inW.Close()
	select {
	case d := <-asked:
		if d != ShutdownGrace {
			t.Errorf("grace %v, want ShutdownGrace (%v)", d, ShutdownGrace)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not start its shutdown grace after end of input")
	}
	select {
	case <-done:
		t.Fatal("Serve returned before the grace ended, with replies unwritten")
	default:
	}
	close(graceOver)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Serve blocked on a writer nobody reads after the grace ended")
	}
}

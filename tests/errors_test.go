package tests

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/testshort"
)

// wantError fails unless r is a well-formed failure with code.
func wantError(t *testing.T, r reply, code string) {
	t.Helper()
	if r.OK || !r.failed() || r.Code != code || r.Message == "" {
		t.Fatalf("want failure %s with a message, got %s", code, clip(r.raw))
	}
}

// wantOK fails unless r is a success.
func wantOK(t *testing.T, r reply) {
	t.Helper()
	if !r.OK || r.failed() {
		t.Fatalf("want ok, got %s", clip(r.raw))
	}
}

// stillServing checks the host answers health after a failure.
func stillServing(t *testing.T, h *host) {
	t.Helper()
	r := h.call("health", nil)
	wantOK(t, r)
}

// TestErrorCodes sends one bad (or borderline) request per row to a single
// host and checks the code, the echoed id, and that the host still serves.
func TestErrorCodes(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	tests := []struct {
		name   string
		frame  string // the request's JSON text
		wantID string // the reply's id as JSON text
		code   string // "" for success
		codes  []string
	}{
		{name: "not JSON", frame: `this is not json`, wantID: `null`, code: "INVALID_REQUEST"},
		{name: "JSON array", frame: `[1,2,3]`, wantID: `null`, code: "INVALID_REQUEST"},
		{name: "JSON string", frame: `"health"`, wantID: `null`, code: "INVALID_REQUEST"},
		{name: "JSON null", frame: `null`, wantID: `null`, code: "INVALID_REQUEST"},
		{name: "no id", frame: `{"method":"health"}`, wantID: `null`, code: "INVALID_REQUEST"},
		{name: "id is an object", frame: `{"id":{"a":1},"method":"health"}`, wantID: `null`, code: "INVALID_REQUEST"},
		{name: "id is a bool", frame: `{"id":true,"method":"health"}`, wantID: `null`, code: "INVALID_REQUEST"},
		{name: "no method", frame: `{"id":"m1"}`, wantID: `"m1"`, code: "INVALID_REQUEST"},
		{name: "params not an object", frame: `{"id":"p1","method":"execute","params":[1]}`, wantID: `"p1"`, code: "INVALID_REQUEST"},
		{name: "execute without capability", frame: `{"id":"e1","method":"execute","params":{}}`, wantID: `"e1"`, code: "INVALID_REQUEST"},
		{name: "describe without name", frame: `{"id":"d1","method":"capabilities.describe","params":{}}`, wantID: `"d1"`, code: "INVALID_REQUEST"},
		{name: "describe with a numeric name", frame: `{"id":"d2","method":"capabilities.describe","params":{"name":5}}`, wantID: `"d2"`, code: "INVALID_REQUEST"},
		{name: "arguments not an object", frame: `{"id":"a1","method":"execute","params":{"capability":"computer.echo","arguments":[1]}}`, wantID: `"a1"`, code: "INVALID_ARGUMENTS"},
		{name: "arguments a string", frame: `{"id":"a2","method":"execute","params":{"capability":"computer.echo","arguments":"{}"}}`, wantID: `"a2"`, code: "INVALID_ARGUMENTS"},
		{name: "capability not a string", frame: `{"id":"e2","method":"execute","params":{"capability":7}}`, wantID: `"e2"`, code: "INVALID_REQUEST"},
		{name: "origin not a string", frame: `{"id":"e3","method":"execute","params":{"capability":"computer.echo","origin":1}}`, wantID: `"e3"`, code: "INVALID_REQUEST"},
		{name: "method not a string", frame: `{"id":"m2","method":5}`, wantID: `"m2"`, code: "INVALID_REQUEST"},
		{name: "empty method", frame: `{"id":"m3","method":""}`, wantID: `"m3"`, codes: []string{"INVALID_REQUEST", "UNKNOWN_METHOD"}},
		{name: "params null", frame: `{"id":"pn","method":"health","params":null}`, wantID: `"pn"`},
		{name: "params a string", frame: `{"id":"ps","method":"health","params":"x"}`, wantID: `"ps"`, code: "INVALID_REQUEST"},
		{name: "unknown params fields are ignored", frame: `{"id":"pu","method":"health","params":{"verbose":true}}`, wantID: `"pu"`},
		{name: "id longer than 256 bytes", frame: `{"id":"` + strings.Repeat("x", 300) + `","method":"health"}`, wantID: `null`, code: "INVALID_REQUEST"},
		{name: "invalid UTF-8 inside a string is answered under the request's id", frame: "{\"id\":\"u1\",\"method\":\"health\",\"params\":{\"x\":\"\xff\"}}", wantID: `"u1"`, code: "INVALID_REQUEST"},
		{name: "cancel without id", frame: `{"id":"k2","method":"cancel","params":{}}`, wantID: `"k2"`, code: "INVALID_REQUEST"},
		{name: "cancel with an object id", frame: `{"id":"k3","method":"cancel","params":{"id":{}}}`, wantID: `"k3"`, code: "INVALID_REQUEST"},
		{name: "unknown method", frame: `{"id":42,"method":"tools/call","params":{}}`, wantID: `42`, code: "UNKNOWN_METHOD"},
		{name: "unknown capability", frame: `{"id":"c1","method":"execute","params":{"capability":"computer.nope"}}`, wantID: `"c1"`, code: "CAPABILITY_NOT_FOUND"},
		{name: "describe unknown capability", frame: `{"id":"c2","method":"capabilities.describe","params":{"name":"nobody.nothing"}}`, wantID: `"c2"`, code: "CAPABILITY_NOT_FOUND"},
		{name: "arguments violate the schema", frame: `{"id":"v1","method":"execute","params":{"capability":"computer.click","arguments":{"x":"a","y":1}}}`, wantID: `"v1"`, code: "INVALID_ARGUMENTS"},
		{name: "tool result isError", frame: `{"id":"x1","method":"execute","params":{"capability":"computer.fail","arguments":{"message":"boom"}}}`, wantID: `"x1"`, code: "EXECUTION_ERROR"},
		{name: "locked origin runs a capability outside its list", frame: `{"id":"f1","method":"execute","params":{"capability":"computer.click","arguments":{"x":1,"y":2},"origin":"https://locked.example"}}`, wantID: `"f1"`, code: "FORBIDDEN"},
		{name: "locked origin runs its allowed capability", frame: `{"id":"f2","method":"execute","params":{"capability":"computer.echo","arguments":{"a":1},"origin":"https://locked.example"}}`, wantID: `"f2"`},
		{name: "locked origin runs a meta-capability", frame: `{"id":"f3","method":"execute","params":{"capability":"capabilities.list","origin":"https://locked.example"}}`, wantID: `"f3"`},
		{name: "locked origin and unknown capability", frame: `{"id":"f4","method":"execute","params":{"capability":"computer.nope","origin":"https://locked.example"}}`, wantID: `"f4"`, code: "CAPABILITY_NOT_FOUND"},
		{name: "other origin falls back to the default policy", frame: `{"id":"f5","method":"execute","params":{"capability":"computer.click","arguments":{"x":1,"y":2},"origin":"https://free.example"}}`, wantID: `"f5"`},
		{name: "forbidden comes before argument validation", frame: `{"id":"f6","method":"execute","params":{"capability":"computer.click","arguments":{"x":"bad"},"origin":"https://locked.example"}}`, wantID: `"f6"`, code: "FORBIDDEN"},
		{name: "string and number ids are echoed as sent", frame: `{"id":"007","method":"health"}`, wantID: `"007"`},
		{name: "fractional number id", frame: `{"id":1.5,"method":"health"}`, wantID: `1.5`},
		{name: "cancel of nothing in flight", frame: `{"id":"k1","method":"cancel","params":{"id":"nothing"}}`, wantID: `"k1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.use(t)
			h.writeFrame([]byte(tt.frame))
			var r reply
			if tt.wantID == "null" {
				r = h.awaitNull()
			} else {
				r = h.await(tt.wantID)
			}
			if diff := cmp.Diff(tt.wantID, string(r.ID)); diff != "" {
				t.Errorf("id (-want +got):\n%s", diff)
			}
			switch {
			case len(tt.codes) > 0:
				ok := false
				for _, c := range tt.codes {
					ok = ok || (r.Code == c && !r.OK && r.failed())
				}
				if !ok {
					t.Fatalf("want one of %v, got %s", tt.codes, clip(r.raw))
				}
			case tt.code != "":
				wantError(t, r, tt.code)
			default:
				wantOK(t, r)
			}
			stillServing(t, h)
		})
	}
}

// TestInvalidArgumentsListsEachViolation checks details.errors: one
// {"path","message"} per violation.
func TestInvalidArgumentsListsEachViolation(t *testing.T) {
	testshort.Parallel(t)
	h, f := startStandard(t)
	r := h.execute("computer.click", map[string]any{"x": -1, "button": "side", "extra": true})
	wantError(t, r, "INVALID_ARGUMENTS")
	var d struct {
		Errors []struct {
			Path    *string `json:"path"`
			Message string  `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(r.Details, &d); err != nil {
		t.Fatalf("details: %v: %s", err, r.Details)
	}
	// x < 0, button not in enum, y missing, extra not allowed.
	if len(d.Errors) < 4 {
		t.Errorf("want at least 4 violations, got %d: %s", len(d.Errors), r.Details)
	}
	for _, e := range d.Errors {
		if e.Path == nil || e.Message == "" {
			t.Errorf("violation without path or message: %s", r.Details)
		}
	}
	for _, c := range f.calls() {
		if c.Tool == "click" {
			t.Errorf("invalid arguments reached the server: %+v", c)
		}
	}
	stillServing(t, h)
}

// TestExecutionErrorCarriesToolResult checks that an isError result fails
// with EXECUTION_ERROR and details equal to the whole tool result.
func TestExecutionErrorCarriesToolResult(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	r := h.execute("computer.fail", map[string]any{"message": "the disk is on fire"})
	wantError(t, r, "EXECUTION_ERROR")
	var got any
	if err := json.Unmarshal(r.Details, &got); err != nil {
		t.Fatalf("details: %v", err)
	}
	want := map[string]any{
		"content": []any{map[string]any{"type": "text", "text": "the disk is on fire"}},
		"isError": true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
	stillServing(t, h)
}

// TestTimeout: a call longer than the provider's timeout fails with TIMEOUT,
// the server is told to cancel, and the host keeps serving.
func TestTimeout(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	h := startHost(t, hostOptions{config: &Config{Providers: []ProviderConfig{
		f.provider("munim", "computer", "300ms", nil),
	}}})
	h.awaitReady()
	r := h.execute("computer.slow", map[string]any{"ms": 60000, "tag": "timeout"})
	wantError(t, r, "TIMEOUT")
	f.awaitCall("the timed-out slow call as cancelled", func(c callEntry) bool { return c.Tool == "slow" && c.Cancelled })
	wantOK(t, h.execute("computer.echo", map[string]any{"after": "timeout"}))
}

// TestProviderNotFound: a capability whose prefix belongs to no configured
// provider fails with PROVIDER_NOT_FOUND ("no provider registered for the
// capability"); an unknown tool of a provider that has listed its
// tools is CAPABILITY_NOT_FOUND. Policy still comes first.
func TestProviderNotFound(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	wantError(t, h.execute("ghost.walk", map[string]any{}), "PROVIDER_NOT_FOUND")
	stillServing(t, h)
	wantError(t, h.execute("computer.walk", map[string]any{}), "CAPABILITY_NOT_FOUND")
	wantError(t, h.call("execute", executeParams("ghost.walk", nil, lockedOrigin)), "FORBIDDEN")
	stillServing(t, h)
}

// TestMessageTooLarge: a length above 64 MiB is answered with
// MESSAGE_TOO_LARGE and id null without the body being sent, then the host
// exits cleanly (status 0), as docs/protocol.md says.
func TestMessageTooLarge(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	var hdr [4]byte
	binary.LittleEndian.PutUint32(hdr[:], 64<<20+1)
	h.writeRaw(hdr[:])
	r := h.awaitNull()
	wantError(t, r, "MESSAGE_TOO_LARGE")
	code, ok := h.waitExit(replyTimeout)
	if !ok {
		t.Fatal("host did not exit after MESSAGE_TOO_LARGE")
	}
	if code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	if left := markedProcesses(h.mark); len(left) > 0 {
		t.Errorf("processes left behind: %v", left)
	}
}

// TestExactly64MiBIsAccepted: the inbound limit is inclusive; a 64 MiB
// request is read (and answered) and the host keeps serving.
func TestExactly64MiBIsAccepted(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	const size = 64 << 20
	head := []byte(`{"id":"big","method":"health","params":{"pad":"`)
	tail := []byte(`"}}`)
	body := make([]byte, size)
	copy(body, head)
	for i := len(head); i < size-len(tail); i++ {
		body[i] = 'a'
	}
	copy(body[size-len(tail):], tail)
	h.writeFrame(body)
	wantOK(t, h.await(`"big"`))
	stillServing(t, h)
}

// TestMalformedFrames: zero-length frames and bodies that are not JSON
// objects get INVALID_REQUEST, with id null when no id can be found in
// them and under that id when one can; the host keeps serving.
func TestMalformedFrames(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	for _, body := range []string{"", " ", "{", "\xff\xfe\x00", "123", "true", `{"id":null,"method":"health"`} {
		h.writeFrame([]byte(body))
		r := h.awaitNull()
		if r.Code != "INVALID_REQUEST" {
			t.Errorf("body %q: got %s, want INVALID_REQUEST", body, clip(r.raw))
		}
		stillServing(t, h)
	}
	for _, body := range []string{`{"id":1,"method":"health"`, `{"id":1}{"id":2}`, "{\"id\":1,\"method\":\"health\xff\"}"} {
		h.writeFrame([]byte(body))
		r := h.await(`1`)
		if r.Code != "INVALID_REQUEST" {
			t.Errorf("body %q: got %s, want INVALID_REQUEST", body, clip(r.raw))
		}
		stillServing(t, h)
	}
}

// TestTruncatedFrameEndsCleanly: stdin ending in the middle of a frame is
// the browser going away; the host exits without crashing and leaves nothing.
func TestTruncatedFrameEndsCleanly(t *testing.T) {
	testshort.Parallel(t)
	for name, raw := range map[string][]byte{
		"inside the header": {0x10, 0x00},
		"inside the body":   append([]byte{100, 0, 0, 0}, `{"id":1,"meth`...),
	} {
		t.Run(name, func(t *testing.T) {
			h, _ := startStandard(t)
			h.writeRaw(raw)
			h.closeStdin()
			code, ok := h.waitExit(replyTimeout)
			if !ok {
				t.Fatal("host did not exit after a truncated frame")
			}
			if code != 0 {
				t.Errorf("exit status %d, want 0; stderr:\n%s", code, h.stderr.String())
			}
			if left := markedProcesses(h.mark); len(left) > 0 {
				t.Errorf("processes left behind: %v", left)
			}
		})
	}
}

// TestUntrustedExtensionIsForbidden: a host started for another extension's
// origin refuses to run anything (FORBIDDEN) but still answers every frame.
func TestUntrustedExtensionIsForbidden(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	h := startHost(t, hostOptions{config: standardConfig(f), origin: "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"})
	for _, req := range []struct {
		method string
		params any
	}{
		{"execute", executeParams("computer.echo", map[string]any{"a": 1}, "")},
		{"execute", executeParams("capabilities.list", nil, "")},
		{"capabilities.list", nil},
		{"capabilities.describe", map[string]any{"name": "computer.echo"}},
	} {
		r := h.call(req.method, req.params)
		wantError(t, r, "FORBIDDEN")
	}
	for _, c := range f.calls() {
		t.Errorf("an untrusted extension's call reached the server: %+v", c)
	}
	// No provider is started for an untrusted caller: only the host runs.
	if procs := markedProcesses(h.mark); len(procs) != 1 || procs[0] != h.c.Pid() {
		t.Errorf("processes running for an untrusted caller: %v", describeProcs(procs))
	}
	wantError(t, h.call("health", nil), "FORBIDDEN")
}

// TestFramesInPiecesAndTogether: a frame may arrive split over several
// writes (even inside the length), and several frames may arrive in one write.
func TestFramesInPiecesAndTogether(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	frame := func(body string) []byte {
		b := make([]byte, 4+len(body))
		binary.LittleEndian.PutUint32(b, uint32(len(body)))
		copy(b[4:], body)
		return b
	}
	one := frame(`{"id":"pieces","method":"health"}`)
	for _, piece := range [][]byte{one[:2], one[2:7], one[7:20], one[20:]} {
		h.writeRaw(piece)
		time.Sleep(20 * time.Millisecond) // let each piece be read on its own
	}
	wantOK(t, h.await(`"pieces"`))
	var burst []byte
	for i := 0; i < 5; i++ {
		burst = append(burst, frame(fmt.Sprintf(`{"id":"burst-%d","method":"capabilities.list"}`, i))...)
	}
	burst = append(burst, frame(`not json`)...)
	burst = append(burst, frame(`{"id":"burst-last","method":"health"}`)...)
	h.writeRaw(burst)
	for i := 0; i < 5; i++ {
		wantOK(t, h.await(fmt.Sprintf(`"burst-%d"`, i)))
	}
	wantError(t, h.awaitNull(), "INVALID_REQUEST")
	wantOK(t, h.await(`"burst-last"`))
}

// TestDuplicateIDInFlight: a request reusing the id of one still in flight
// is refused with INVALID_REQUEST under that id; the first is unaffected.
func TestDuplicateIDInFlight(t *testing.T) {
	testshort.Parallel(t)
	h, f := startStandard(t)
	h.sendID("dup", "execute", executeParams("computer.slow", map[string]any{"ms": 600000, "tag": "dup"}, ""))
	f.awaitStarted("dup")
	h.sendID("dup", "health", nil)
	wantError(t, h.await(`"dup"`), "INVALID_REQUEST")
	if h.has(`"dup"`) {
		t.Fatal("the first request was answered by the duplicate")
	}
	wantOK(t, h.call("cancel", map[string]any{"id": "dup"}))
	wantError(t, h.await(`"dup"`), "CANCELLED")
	// Once answered, the id is free again.
	h.sendID("dup", "health", nil)
	wantOK(t, h.await(`"dup"`))
}

// TestRandomGarbageFrames: frames of random bytes (fixed seed) are each
// answered with INVALID_REQUEST and id null, and the host keeps serving.
func TestRandomGarbageFrames(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 200
	for i := 0; i < n; i++ {
		b := make([]byte, rng.IntN(300))
		for j := range b {
			b[j] = byte(rng.UintN(256))
		}
		if i%2 == 0 && len(b) > 0 {
			b[0] = '{' // get past the first byte now and then
		}
		h.writeFrame(b)
	}
	for i := 0; i < n; i++ {
		wantError(t, h.awaitNull(), "INVALID_REQUEST")
	}
	stillServing(t, h)
}

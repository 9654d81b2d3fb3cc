package mcpprovider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	rt "github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
	"github.com/google/go-cmp/cmp"
)

const shapesSchema = `{"type":"object","$schema":"https://json-schema.org/draft/2019-09/schema","properties":{"shape":{"oneOf":[{"$ref":"#/$defs/circle"},{"$ref":"#/definitions/square"}]}},"required":["shape"],"$defs":{"circle":{"type":"object","properties":{"r":{"type":"number","minimum":0}},"required":["r"]}},"definitions":{"square":{"type":"object","properties":{"side":{"type":"number"}},"required":["side"],"additionalProperties":false}}}`

func TestDescribeReturnsTheSchemaByteForByte(t *testing.T) {
	h := startTestServer(t, Config{})
	got, err := h.rt.Describe("t.shapes")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(compact(t, shapesSchema), string(got.InputSchema)); diff != "" {
		t.Errorf("schema changed on the way (-sent +described):\n%s", diff)
	}
}

func TestExecuteValidatesAgainstTheRawSchema(t *testing.T) {
	h := startTestServer(t, Config{})
	tests := []struct {
		name string
		args string
		want wire.Code
	}{
		{"circle via $defs is accepted", `{"shape":{"r":1}}`, ""},
		{"square via definitions is accepted", `{"shape":{"side":2}}`, ""},
		{"negative radius is rejected", `{"shape":{"r":-1}}`, wire.CodeInvalidArguments},
		{"square with a string side is rejected", `{"shape":{"side":"big"}}`, wire.CodeInvalidArguments},
		{"missing shape is rejected", `{}`, wire.CodeInvalidArguments},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.shapes", Arguments: json.RawMessage(tc.args)})
			if got := codeOf(err); got != tc.want {
				t.Errorf("code = %q, want %q (err %v)", got, tc.want, err)
			}
		})
	}
}

func TestDiscoveryFollowsPagination(t *testing.T) {
	h := startTestServer(t, Config{Args: []string{"-page", "3", "-fillers", "10"}})
	got := h.rt.Health().Providers[0].Capabilities
	if want := 11 + 10; got != want { // eleven fixed tools, ten fillers
		t.Errorf("discovered %d tools over pages of 3, want %d", got, want)
	}
	if _, err := h.rt.Describe("t.filler_09"); err != nil {
		t.Errorf("last page's tool missing: %v", err)
	}
}

func TestListChangedRefreshesTheRegistry(t *testing.T) {
	h := startTestServer(t, Config{})
	before := h.events.count(rt.EventCapabilitiesChanged)
	if _, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.grow", Arguments: json.RawMessage(`{"name":"sprout"}`)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "t.sprout to appear", 5*time.Second, func() bool {
		_, err := h.rt.Describe("t.sprout")
		return err == nil
	})
	if h.events.count(rt.EventCapabilitiesChanged) <= before {
		t.Error("no capabilities.changed event after list_changed")
	}
	if _, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.sprout"}); err != nil {
		t.Errorf("new tool not callable: %v", err)
	}
}

func TestToolErrorIsExecutionErrorWithTheResult(t *testing.T) {
	h := startTestServer(t, Config{})
	_, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.fail"})
	var e *wire.Error
	if !errors.As(err, &e) || e.Code != wire.CodeExecutionError {
		t.Fatalf("err = %v, want EXECUTION_ERROR", err)
	}
	var details struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	raw, ok := e.Details.(json.RawMessage)
	if !ok || json.Unmarshal(raw, &details) != nil {
		t.Fatalf("details = %#v, want the raw tool result", e.Details)
	}
	if !details.IsError || len(details.Content) != 1 || details.Content[0].Text != "it broke" {
		t.Errorf("details = %s", raw)
	}
}

func TestCrashMidCallIsUnavailableThenTheServerIsBack(t *testing.T) {
	h := startTestServer(t, Config{})
	_, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.crash"})
	if got := codeOf(err); got != wire.CodeProviderUnavailable {
		t.Fatalf("code = %q, want PROVIDER_UNAVAILABLE (err %v)", got, err)
	}
	waitFor(t, "a restarted, ready provider", 10*time.Second, func() bool {
		return len(h.pids(t)) == 2 && h.prov.Status().State == rt.StateReady
	})
	res, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.echo", Arguments: json.RawMessage(`{"text":"again"}`)})
	if err != nil {
		t.Fatalf("call after restart: %v", err)
	}
	if !strings.Contains(string(res), `again`) {
		t.Errorf("result = %s", res)
	}
	if diff := cmp.Diff([]rt.State{rt.StateReady, rt.StateDown, rt.StateStarting, rt.StateReady}, h.events.states()); diff != "" {
		t.Errorf("provider.state events (-want +got):\n%s", diff)
	}
	if !strings.Contains(h.log.String(), "exit status 3") {
		t.Errorf("exit not logged:\n%s", h.log)
	}
}

func TestAServerThatCannotStartIsDownWithTheReasonAndRetried(t *testing.T) {
	h := startTestServer(t, Config{Args: []string{"-fail-start"}})
	st := h.prov.Status()
	if st.State != rt.StateDown || !strings.Contains(st.Err, "exit status 7") {
		t.Errorf("status = %+v, want down with exit status 7", st)
	}
	waitFor(t, "a retry", 5*time.Second, func() bool { return len(h.pids(t)) >= 2 })
	_, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.echo"})
	if got := codeOf(err); got != wire.CodeProviderUnavailable {
		t.Errorf("code = %q, want PROVIDER_UNAVAILABLE (never listed its tools)", got)
	}
	if hl := h.rt.Health(); hl.Status != "degraded" || hl.Providers[0].Error == "" {
		t.Errorf("health = %+v", hl)
	}
}

func TestCallTimeoutIsTimeoutAndTheServerIsToldToStop(t *testing.T) {
	h := startTestServer(t, Config{Timeout: 300 * time.Millisecond})
	// The tool would sleep 10 s and succeed: TIMEOUT is the timeout at work.
	_, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.slow", Arguments: json.RawMessage(`{"ms":10000}`)})
	if got := codeOf(err); got != wire.CodeTimeout {
		t.Fatalf("code = %q, want TIMEOUT (err %v)", got, err)
	}
	waitFor(t, "the server to see notifications/cancelled", 5*time.Second, func() bool {
		return strings.Contains(h.log.String(), "slow: cancelled by client")
	})
}

func TestCancellingTheContextIsCancelledAndTheServerIsTold(t *testing.T) {
	h := startTestServer(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitFor(t, "slow to start", 5*time.Second, func() bool { return strings.Contains(h.log.String(), "slow: started") })
		cancel()
	}()
	_, err := h.rt.Execute(ctx, rt.Call{Capability: "t.slow", Arguments: json.RawMessage(`{"ms":10000}`)})
	if got := codeOf(err); got != wire.CodeCancelled {
		t.Fatalf("code = %q, want CANCELLED (err %v)", got, err)
	}
	waitFor(t, "the server to see notifications/cancelled", 5*time.Second, func() bool {
		return strings.Contains(h.log.String(), "slow: cancelled by client")
	})
	if _, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.echo"}); err != nil {
		t.Errorf("provider unusable after a cancel: %v", err)
	}
}

func TestChildStderrIsLoggedLineByLineWithTheProviderName(t *testing.T) {
	h := startTestServer(t, Config{Env: map[string]string{"TESTSERVER_GREETING": "hello-env"}})
	if _, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.noisy", Arguments: json.RawMessage(`{"text":"line one\nline two"}`)}); err != nil {
		t.Fatal(err)
	}
	var lines []string
	waitFor(t, "both stderr lines", 5*time.Second, func() bool {
		lines = nil
		for _, l := range strings.Split(h.log.String(), "\n") {
			var rec struct{ Provider, Stream, Message string }
			if json.Unmarshal([]byte(l), &rec) == nil && rec.Stream == "stderr" && rec.Provider == "test" {
				lines = append(lines, rec.Message)
			}
		}
		return len(lines) >= 3
	})
	if !strings.Contains(lines[0], "greeting=hello-env") {
		t.Errorf("first stderr line %q: env not passed to the child", lines[0])
	}
	if diff := cmp.Diff([]string{"line one", "line two"}, lines[len(lines)-2:]); diff != "" {
		t.Errorf("stderr lines (-want +got):\n%s", diff)
	}
}

// Close asks the child to exit (stdin closed), waits the grace on the
// provider's clock and then kills the whole tree: the test's clock decides
// when the grace is over, so no wall-clock bound is needed.
func TestCloseStopsTheWholeProcessTreeAfterTheGrace(t *testing.T) {
	if !canCheckProcesses {
		t.Skip("no way to check processes on " + runtime.GOOS)
	}
	clk := newTestClock()
	h := startTestServer(t, Config{}, withClock(clk))
	res, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.spawn"})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("spawn result %s", res)
	}
	grandchild := r.Content[0].Text
	child := h.pids(t)[0]
	for _, pid := range []string{child, grandchild} {
		if !alive(pid) {
			t.Fatalf("pid %s not running before Close", pid)
		}
	}
	// A call in flight during Close ends with CANCELLED.
	callErr := make(chan error, 1)
	go func() {
		_, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.slow", Arguments: json.RawMessage(`{"ms":600000}`)})
		callErr <- err
	}()
	waitFor(t, "slow to start", 5*time.Second, func() bool { return strings.Contains(h.log.String(), "slow: started") })

	closed := make(chan error, 1)
	go func() { closed <- h.rt.Close() }()
	waitFor(t, "Close to wait the grace", 10*time.Second, func() bool { return clk.waiting(stopGrace) })
	clk.fire(stopGrace)
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second): // the slow call alone would take ten minutes
		t.Fatal("Close did not return once the grace was over")
	}
	for _, pid := range []string{child, grandchild} {
		if alive(pid) {
			t.Errorf("pid %s still running after Close", pid)
		}
	}
	if got := codeOf(<-callErr); got != wire.CodeCancelled {
		t.Errorf("in-flight call code = %q, want CANCELLED", got)
	}
}

func TestALargeResultArrivesWhole(t *testing.T) {
	h := startTestServer(t, Config{})
	const n = 16 << 20
	res, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.big", Arguments: json.RawMessage(`{"bytes":16777216}`)})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Content []struct{ Type, Data, MimeType string } `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Content) != 1 || r.Content[0].Type != "image" || len(r.Content[0].Data) != n || r.Content[0].Data[n-4:] != "QUJD" {
		t.Errorf("content: %d items, first of type %q with %d bytes", len(r.Content), r.Content[0].Type, len(r.Content[0].Data))
	}
}

func TestConcurrentCallsEachGetTheirOwnAnswer(t *testing.T) {
	h := startTestServer(t, Config{})
	const n = 50
	errs := make(chan error, n)
	for i := range n {
		go func() {
			want := fmt.Sprintf("call-%d", i)
			res, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.echo", Arguments: json.RawMessage(`{"text":"` + want + `"}`)})
			if err == nil && !strings.Contains(string(res), `\"`+want+`\"`) {
				err = fmt.Errorf("call %d got %s", i, res)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestAServerThatHangsUpIsStoppedAndRestarted(t *testing.T) {
	if runtime.GOOS == "windows" {
		// Under Wine, a Windows child closing its stdout handle does not end
		// the pipe for us: the test server cannot hang up that way there.
		t.Skip("the test server cannot hang up on Windows")
	}
	h := startTestServer(t, Config{})
	first := h.pids(t)[0]
	_, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.hang_up"})
	if got := codeOf(err); got != wire.CodeProviderUnavailable {
		t.Fatalf("code = %q, want PROVIDER_UNAVAILABLE (err %v)", got, err)
	}
	waitFor(t, "a restarted, ready provider", 10*time.Second, func() bool {
		return len(h.pids(t)) == 2 && h.prov.Status().State == rt.StateReady
	})
	if canCheckProcesses && alive(first) {
		t.Errorf("the hung-up server (pid %s) is still running", first)
	}
}

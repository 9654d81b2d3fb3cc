package mcpprovider

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	rt "github.com/gnosis/gnosis/runtime"
	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
)

// progressLog records the progress reports of one call, and whether any
// arrived after the call returned.
type progressLog struct {
	mu       sync.Mutex
	reports  []rt.Progress
	returned bool
	late     int
}

func (l *progressLog) report(p rt.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.returned {
		l.late++
	}
	l.reports = append(l.reports, p)
}

func (l *progressLog) done() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.returned = true
}

// allowAll lets calls without an origin run every capability.
var allowAll = rt.Policy{Default: rt.Rule{Allow: []string{"*"}}}

func total(n float64) *float64 { return &n }

// mcpgoEverything builds mcp-go's example server "everything", whose
// longRunningOperation reads the request's progress token without checking
// that the request has a _meta: it fails when the client sends none.
func mcpgoEverything(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(tempDir(t), "mcpgo-everything"+exeSuffix())
	build := exec.Command("go", "build", "-o", bin, "github.com/mark3labs/mcp-go/examples/everything")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building mcp-go's example server: %v\n%s", err, out)
	}
	return bin
}

func TestProgressOfAnMCPGoServerReachesTheCallerInOrder(t *testing.T) {
	h := startTestServer(t, Config{Name: "mcpgo", Prefix: "go", Command: mcpgoEverything(t)})
	h.rt.SetPolicy(allowAll)
	var log progressLog
	ctx := rt.WithProgress(context.Background(), log.report)
	res, err := h.rt.Execute(ctx, rt.Call{Capability: "go.longRunningOperation", Arguments: json.RawMessage(`{"duration":0.3,"steps":3}`)})
	log.done()
	if err != nil {
		t.Fatalf("call: %v\nlog:\n%s", err, h.log)
	}
	if !strings.Contains(string(res), "Long running operation completed") {
		t.Errorf("result: %s", res)
	}
	want := []rt.Progress{
		{Progress: 1, Total: total(3), Message: "Server progress 33%"},
		{Progress: 2, Total: total(3), Message: "Server progress 66%"},
		{Progress: 3, Total: total(3), Message: "Server progress 100%"},
	}
	// mcp-go's server writes notifications from a queue of their own, so its
	// last report races its own reply: when the reply is first, that report
	// follows the completed call and is dropped (MCP says progress ends with
	// the call). The reports sent while the call ran, a step apart, arrive
	// in order before it returns.
	got := log.reports
	if len(got) < len(want)-1 || len(got) > len(want) {
		t.Fatalf("%d progress reports, want %d (or %d when the server's last one trails its reply): %+v", len(got), len(want), len(want)-1, got)
	}
	if diff := cmp.Diff(want[:len(got)], got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if log.late != 0 {
		t.Errorf("%d reports arrived after the call returned", log.late)
	}
}

func TestProgressOfServerEverythingReachesTheCaller(t *testing.T) {
	h := startTestServer(t, Config{Name: "everything", Prefix: "ev", Command: "node", Args: []string{everythingScript(t), "stdio"}})
	h.rt.SetPolicy(allowAll)
	var log progressLog
	ctx := rt.WithProgress(context.Background(), log.report)
	_, err := h.rt.Execute(ctx, rt.Call{Capability: "ev.trigger-long-running-operation", Arguments: json.RawMessage(`{"duration":0.3,"steps":3}`)})
	log.done()
	if err != nil {
		t.Fatalf("call: %v\nlog:\n%s", err, h.log)
	}
	want := []rt.Progress{{Progress: 1, Total: total(3)}, {Progress: 2, Total: total(3)}, {Progress: 3, Total: total(3)}}
	if diff := cmp.Diff(want, log.reports); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}

func TestProgressRoutesDeliverOnlyTheirOwnReports(t *testing.T) {
	notification := func(params string) mcp.JSONRPCNotification {
		var n mcp.JSONRPCNotification
		if err := json.Unmarshal([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":`+params+`}`), &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	tests := []struct {
		name   string
		params string
		want   []rt.Progress
	}{
		{"progress, total and message", `{"progressToken":"gnosis-7","progress":0.5,"total":2,"message":"half"}`,
			[]rt.Progress{{Progress: 0.5, Total: total(2), Message: "half"}}},
		{"progress only", `{"progressToken":"gnosis-7","progress":4}`, []rt.Progress{{Progress: 4}}},
		{"another call's token", `{"progressToken":"gnosis-8","progress":1}`, nil},
		{"a numeric token", `{"progressToken":7,"progress":1}`, nil},
		{"no progress", `{"progressToken":"gnosis-7","total":3}`, nil},
		{"progress not a number", `{"progressToken":"gnosis-7","progress":"1"}`, nil},
		{"total not a number is left out", `{"progressToken":"gnosis-7","progress":1,"total":"3"}`, []rt.Progress{{Progress: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r progressRoutes
			var got []rt.Progress
			r.add("gnosis-7", func(p rt.Progress) { got = append(got, p) })
			r.deliver(notification(tt.params))
			r.remove("gnosis-7")
			r.deliver(notification(tt.params)) // after the call: dropped
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

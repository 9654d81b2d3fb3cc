package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/prereq"
	"github.com/gnosis/gnosis/internal/testshort"
)

// everythingEntry is the stdio entry point of the real third-party MCP
// server @modelcontextprotocol/server-everything (installed by npm ci).
func everythingEntry(t *testing.T) string {
	t.Helper()
	p := filepath.Join(repoRoot, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	prereq.Command(t, "install Node.js", "node")
	return prereq.File(t, p, "the npm package @modelcontextprotocol/server-everything", prereq.NPM)
}

func everythingProvider(t *testing.T) ProviderConfig {
	return ProviderConfig{Name: "everything", Command: "node", Args: []string{everythingEntry(t), "stdio"}, Prefix: "everything", Timeout: "30s"}
}

// everythingSchemas asks server-everything directly for its tools' input schemas.
func everythingSchemas(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	return wireSchemas(t, exec.Command("node", everythingEntry(t), "stdio"))
}

// wireSchemas starts an MCP stdio server and asks it directly (plain
// JSON-RPC lines, following pagination) for its tools' input schemas, as the
// raw bytes it puts on the wire.
func wireSchemas(t *testing.T, cmd *exec.Cmd) map[string]json.RawMessage {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }()
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"gnosis-tests","version":"1"}}}`)
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	lines := make(chan []byte)
	go func() {
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(lines)
	}()
	next := func(id int) json.RawMessage {
		timeout := time.After(replyTimeout)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("server-everything closed stdout")
				}
				var m struct {
					ID     *int            `json:"id"`
					Result json.RawMessage `json:"result"`
				}
				if json.Unmarshal(l, &m) == nil && m.ID != nil && *m.ID == id {
					return m.Result
				}
			case <-timeout:
				t.Fatal("server-everything did not answer")
			}
		}
	}
	next(1)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	out2 := map[string]json.RawMessage{}
	cursor := ""
	for id := 2; ; id++ {
		params := "{}"
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`+"\n", id, params)
		var res struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(next(id), &res); err != nil {
			t.Fatal(err)
		}
		for _, tl := range res.Tools {
			out2[tl.Name] = tl.InputSchema
		}
		if cursor = res.NextCursor; cursor == "" {
			return out2
		}
	}
}

// TestEverythingServer runs the host with fakemunim and the real
// server-everything side by side: both are discovered under their prefixes,
// schemas are kept, calls, validation, tool results and cancellation work.
func TestEverythingServer(t *testing.T) {
	testshort.Parallel(t)
	want := everythingSchemas(t)
	f := newFake(t)
	cfg := standardConfig(f)
	cfg.Providers = append(cfg.Providers, everythingProvider(t))
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()

	var hr healthReply
	json.Unmarshal(h.call("health", nil).raw, &hr)
	if len(hr.Providers) != 2 || providerState(hr, "everything") != "ready" {
		t.Fatalf("health: %+v", hr)
	}

	names := capabilityNames(t, h)
	for tool := range want {
		if !slices.Contains(names, "everything."+tool) {
			t.Errorf("everything.%s not listed", tool)
		}
	}
	if !slices.Contains(names, "computer.click") {
		t.Errorf("fakemunim's tools missing beside server-everything's")
	}

	t.Run("describe keeps the schema", func(t *testing.T) {
		h.use(t)
		for tool, schema := range want {
			r := h.call("capabilities.describe", map[string]any{"name": "everything." + tool})
			wantOK(t, r)
			var d struct {
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			json.Unmarshal(r.raw, &d)
			if diff := cmp.Diff(string(schema), string(d.InputSchema)); diff != "" {
				t.Errorf("%s schema (-server +host):\n%s", tool, diff)
			}
		}
	})
	t.Run("echo", func(t *testing.T) {
		h.use(t)
		r := h.execute("everything.echo", map[string]any{"message": "hello from gnosis"})
		wantOK(t, r)
		if !strings.Contains(string(r.Result), "Echo: hello from gnosis") {
			t.Errorf("result: %s", r.Result)
		}
	})
	t.Run("get-sum", func(t *testing.T) {
		h.use(t)
		r := h.execute("everything.get-sum", map[string]any{"a": 2, "b": 40})
		wantOK(t, r)
		if !strings.Contains(string(r.Result), "42") {
			t.Errorf("result: %s", r.Result)
		}
	})
	t.Run("invalid arguments", func(t *testing.T) {
		h.use(t)
		wantError(t, h.execute("everything.get-sum", map[string]any{"a": "two", "b": 40}), "INVALID_ARGUMENTS")
		wantError(t, h.execute("everything.echo", map[string]any{}), "INVALID_ARGUMENTS")
	})
	t.Run("image result", func(t *testing.T) {
		h.use(t)
		r := h.execute("everything.get-tiny-image", nil)
		wantOK(t, r)
		if !strings.Contains(string(r.Result), `"type":"image"`) {
			t.Errorf("no image in result: %s", clip(r.Result))
		}
	})
	t.Run("cancel a long-running operation", func(t *testing.T) {
		h.use(t)
		mark := h.eventMark()
		h.sendID("long", "execute", executeParams("everything.trigger-long-running-operation", map[string]any{"duration": 600, "steps": 600}, ""))
		// The first progress event (after a second) shows the server is
		// running the tool, so the cancel reaches a call in progress.
		h.awaitEvent(mark, "progress of the long call", func(e event) bool { return e.Event == "progress" && string(e.ID) == `"long"` })
		wantOK(t, h.call("cancel", map[string]any{"id": "long"}))
		wantError(t, h.await(`"long"`), "CANCELLED")
		wantOK(t, h.execute("everything.echo", map[string]any{"message": "still here"}))
	})
	t.Run("progress of a long-running operation arrives before the reply", func(t *testing.T) {
		h.use(t)
		mark := h.eventMark()
		h.sendID("lro", "execute", executeParams("everything.trigger-long-running-operation", map[string]any{"duration": 0.6, "steps": 3}, ""))
		wantOK(t, h.await(`"lro"`))
		three := 3.0
		want := []progressEvent{
			{ID: json.RawMessage(`"lro"`), Event: "progress", Progress: 1, Total: &three},
			{ID: json.RawMessage(`"lro"`), Event: "progress", Progress: 2, Total: &three},
			{ID: json.RawMessage(`"lro"`), Event: "progress", Progress: 3, Total: &three},
		}
		if diff := cmp.Diff(want, progressOf(t, h, mark, `"lro"`)); diff != "" {
			t.Errorf("progress events (-want +got):\n%s", diff)
		}
	})
	t.Run("structured content matching its output schema passes", func(t *testing.T) {
		h.use(t)
		r := h.execute("everything.get-structured-content", map[string]any{"location": "Chicago"})
		wantOK(t, r)
		if !strings.Contains(string(r.Result), `"structuredContent"`) {
			t.Errorf("result: %s", r.Result)
		}
	})
	t.Run("a task-only tool is marked unavailable and refused", func(t *testing.T) {
		h.use(t)
		if got := listEntries(t, h)["everything.simulate-research-query"].Unavailable; got != taskRequired {
			t.Errorf("unavailable = %q, want %q", got, taskRequired)
		}
		r := h.execute("everything.simulate-research-query", map[string]any{"topic": "gnosis"})
		wantError(t, r, "EXECUTION_ERROR")
		if !strings.Contains(r.Message, taskRequired) {
			t.Errorf("message %q", r.Message)
		}
	})
	t.Run("unknown everything capability", func(t *testing.T) {
		h.use(t)
		wantError(t, h.execute("everything.no-such-tool", nil), "CAPABILITY_NOT_FOUND")
	})
}

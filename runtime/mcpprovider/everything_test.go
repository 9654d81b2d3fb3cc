package mcpprovider

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/gnosis/gnosis/internal/prereq"
	rt "github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
	"github.com/google/go-cmp/cmp"
)

// everythingScript is the npm package @modelcontextprotocol/server-everything
// from the repository's node_modules (package-lock.json pins it).
func everythingScript(t *testing.T) string {
	t.Helper()
	prereq.Command(t, "install Node.js", "node")
	p, err := filepath.Abs("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	return prereq.File(t, p, "the npm package @modelcontextprotocol/server-everything", prereq.NPM)
}

func TestThirdPartyServerEverything(t *testing.T) {
	clk := newTestClock()
	h := startTestServer(t, Config{Name: "everything", Prefix: "ev", Command: "node", Args: []string{everythingScript(t), "stdio"}}, withClock(clk))
	if st := h.prov.Status(); st.State != rt.StateReady {
		t.Fatalf("status = %+v\nlog:\n%s", st, h.log)
	}

	t.Run("schema arrives as the server sent it", func(t *testing.T) {
		c, err := h.rt.Describe("ev.echo")
		if err != nil {
			t.Fatal(err)
		}
		want := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},"required":["message"]}`
		if diff := cmp.Diff(want, string(c.InputSchema)); diff != "" {
			t.Errorf("schema (-want +got):\n%s", diff)
		}
	})

	t.Run("a call returns the CallToolResult", func(t *testing.T) {
		res, err := h.rt.Execute(context.Background(), rt.Call{Capability: "ev.echo", Arguments: json.RawMessage(`{"message":"hi there"}`)})
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Content []struct{ Type, Text string } `json:"content"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]struct{ Type, Text string }{{"text", "Echo: hi there"}}, r.Content); diff != "" {
			t.Errorf("content (-want +got):\n%s", diff)
		}
	})

	t.Run("arguments are validated before the call", func(t *testing.T) {
		_, err := h.rt.Execute(context.Background(), rt.Call{Capability: "ev.echo", Arguments: json.RawMessage(`{"message":5}`)})
		if got := codeOf(err); got != wire.CodeInvalidArguments {
			t.Errorf("code = %q, want INVALID_ARGUMENTS", got)
		}
	})

	t.Run("close leaves no node process", func(t *testing.T) {
		pid := h.prov.currentPID()
		closed := make(chan error, 1)
		go func() { closed <- h.rt.Close() }()
		// node exits when its stdin closes; should it not, the grace (on the test's clock) ends and the tree is killed.
		waitFor(t, "Close to wait the grace", 10*time.Second, func() bool { return clk.waiting(stopGrace) })
		clk.fire(stopGrace)
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		if pid != 0 && alive(itoa(pid)) {
			t.Errorf("node (pid %d) still running", pid)
		}
	})
}

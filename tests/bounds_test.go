package tests

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/testshort"
)

// TestAResultPastTheMaximumEndsItsCallAndTheProviderKeepsServing: a server
// answering with an 80 MiB line (above the 64 MiB maximum) fails that call
// with EXECUTION_ERROR, details.reason "result-too-large"; the same server
// process then answers the next call.
func TestAResultPastTheMaximumEndsItsCallAndTheProviderKeepsServing(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	cfg := &Config{Providers: []ProviderConfig{f.provider("munim", "computer", "60s", map[string]string{"FAKEMUNIM_FAULTS": "1"})}}
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()
	r := h.execute("computer.huge_line", map[string]any{"bytes": 80 << 20})
	wantError(t, r, "EXECUTION_ERROR")
	var details struct {
		Reason string `json:"reason"`
		Bytes  int64  `json:"bytes"`
		Limit  int64  `json:"limit"`
	}
	json.Unmarshal(r.Details, &details)
	if details.Reason != "result-too-large" || details.Limit != 64<<20 || details.Bytes < 80<<20 {
		t.Errorf("details %s; want reason result-too-large, the line's size and the limit", r.Details)
	}
	if !strings.Contains(r.Message, "huge_line answered with a message of") {
		t.Errorf("message %q does not say what happened", r.Message)
	}
	wantOK(t, h.execute("computer.echo", map[string]any{"after": "huge"}))
	huge := f.awaitCall("huge_line", func(e callEntry) bool { return e.Tool == "huge_line" })
	echo := f.awaitCall("the echo after it", func(e callEntry) bool { return e.Tool == "echo" })
	if huge.PID != echo.PID {
		t.Errorf("the server was restarted (%d, then %d): a result too large must not cost the connection", huge.PID, echo.PID)
	}
}

// TestWorkspaceReadsPastTheInflightLimitWaitTheirTurn: 10 reads of 4 MiB
// at once with "inflightBytes" of 12 MiB: two replies (5.6 MB each as
// base64) fit at a time, so eight wait for room, and every one is answered
// in full. (Each waits at most session.ReserveWait; ten keep the last one's
// wait well inside it on a loaded machine.)
func TestWorkspaceReadsPastTheInflightLimitWaitTheirTurn(t *testing.T) {
	testshort.Parallel(t)
	dir := t.TempDir()
	piece := strings.Repeat("gnosis!\n", (4<<20)/8)
	writeFile(t, filepath.Join(dir, "big.txt"), []byte(piece))
	raw, err := json.Marshal(map[string]any{
		"providers": []any{},
		"workspace": map[string]any{"dir": dir},
		"limits":    map[string]any{"inflightBytes": 12 << 20},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := startHost(t, hostOptions{rawConfig: string(raw)})
	var ids []string
	for range 10 {
		ids = append(ids, h.send("workspace.read", map[string]any{"path": "big.txt", "offset": 0, "length": 4 << 20}))
	}
	for _, id := range ids {
		r := h.await(id)
		wantOK(t, r)
		var data []byte
		r.field(t, "data", &data) // base64 in JSON decodes into []byte
		if string(data) != piece {
			t.Fatalf("read %d bytes that differ from the file's %d", len(data), len(piece))
		}
	}
}

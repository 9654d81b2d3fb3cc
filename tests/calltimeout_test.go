package tests

import (
	"encoding/json"
	"testing"

	"github.com/gnosis/gnosis/internal/testshort"
)

// health reports the host's per-call limit (the longest provider timeout)
// so the extension waits on the host's figure, and follows providers.set.
func TestHealthReportsTheCallTimeout(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	cfg := standardConfig(f)
	cfg.Providers = []ProviderConfig{f.provider("munim", "computer", "5s", nil), f.provider("second", "pc2", "7s", nil)}
	h := startHost(t, hostOptions{config: cfg})
	h.awaitReady()
	callTimeout := func() int64 {
		t.Helper()
		var hr struct {
			CallTimeoutMs int64 `json:"callTimeoutMs"`
		}
		json.Unmarshal(h.call("health", nil).raw, &hr)
		return hr.CallTimeoutMs
	}
	if got := callTimeout(); got != 7000 {
		t.Errorf("callTimeoutMs = %d, want 7000 (the longest provider timeout)", got)
	}
	wantOK(t, h.call("providers.set", map[string]any{"name": "third", "command": fakemunimBin, "prefix": "pc3", "timeout": 300,
		"env": map[string]string{"FAKEMUNIM_LOG": f.log, "GNOSIS_TEST_MARK": h.mark}}))
	if got := callTimeout(); got != 300000 {
		t.Errorf("callTimeoutMs after providers.set = %d, want 300000", got)
	}
	wantOK(t, h.call("providers.set", map[string]any{"name": "third", "command": fakemunimBin, "prefix": "pc3",
		"env": map[string]string{"FAKEMUNIM_LOG": f.log, "GNOSIS_TEST_MARK": h.mark}}))
	if got := callTimeout(); got != 120000 {
		t.Errorf("callTimeoutMs with a provider that sets no timeout = %d, want the default 120000", got)
	}
}

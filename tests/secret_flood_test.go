package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/gnosis/gnosis/internal/testwait"
)

// waiterScript says on stderr that it waits, then, once the file $RELEASE
// exists, writes the API key of its environment under no name and exits:
// its secret reaches the host's outputs when the test chooses, after the
// flood.
const waiterScript = `echo "waiting for the go" >&2
while [ ! -e "$RELEASE" ]; do sleep 0.05; done
echo "connecting with $SERVICE_API_KEY" >&2
exit 3`

// TestAFloodOfSecretNamedFieldsForgetsNothing plays the flood: a page
// granted nothing sends one execute with more secret-named fields than the
// host keeps values for. Afterwards a provider's configured secret and a
// value the host learned from an earlier request still come out masked, in
// health, the events, the report method, the log at debug, stderr and
// `gnosis-host report`; and the report says how many values the host did
// not keep.
func TestAFloodOfSecretNamedFieldsForgetsNothing(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	release := filepath.Join(t.TempDir(), "go")
	cfg := standardConfig(f)
	cfg.Policy.Origins["https://flood.example"] = []string{}
	cfg.Providers = append(cfg.Providers, ProviderConfig{Name: "waiter", Command: "/bin/sh", Args: []string{"-c", waiterScript},
		Prefix: "waiter", Timeout: "5s", StartTimeout: "10m", Env: map[string]string{"SERVICE_API_KEY": "PLANTEDenv-55", "RELEASE": release}})
	h := startHost(t, hostOptions{config: cfg, env: []string{"GNOSIS_LOG_LEVEL=debug"}})
	testwait.Until(t, replyTimeout, func() error {
		var hr healthReply
		r := h.call("health", nil)
		json.Unmarshal(r.raw, &hr)
		if providerState(hr, "munim") != "ready" {
			return fmt.Errorf("want munim ready, got %s", r.raw)
		}
		return nil
	})

	wantOK(t, h.execute("computer.echo", map[string]any{"password": "PLANTEDlearned-1"}))
	const fields = 6000
	flood := make(map[string]string, fields)
	for i := range fields {
		flood[fmt.Sprintf("token%d", i)] = fmt.Sprintf("flood-value-%06d", i)
	}
	if reason := forbiddenReason(t, h.call("execute", executeParams("computer.echo", flood, "https://flood.example"))); reason != "not-granted" {
		t.Fatalf("the flood was refused for %q, want not-granted", reason)
	}

	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var health string
	testwait.Until(t, replyTimeout, func() error {
		r := h.call("health", nil)
		health = string(r.raw)
		if strings.Contains(health, "connecting with") {
			return nil
		}
		return fmt.Errorf("want the waiter's stderr in health, got %s", r.raw)
	})
	if !strings.Contains(health, "connecting with [redacted]") {
		t.Errorf("health does not show the configured secret masked: %s", health)
	}
	wantOK(t, h.execute("computer.echo", map[string]any{"text": "I typed PLANTEDlearned-1 again"}))
	r := h.call("report", nil)
	wantOK(t, r)
	var report string
	r.field(t, "text", &report)
	if !strings.Contains(report, "more values under secret names in requests than the 4096 it keeps") {
		t.Errorf("the report does not say the host kept no more values:\n%s", report)
	}

	events, logFile := stopAndRead(t, h)
	for _, want := range []string{`"message":"connecting with [redacted]"`, `"text":"I typed [redacted] again"`} {
		if !strings.Contains(logFile, want) {
			t.Errorf("the log lacks %s", want)
		}
	}
	command, err := reportOf(h)
	if err != nil {
		t.Fatalf("gnosis-host report: %v\n%s", err, command)
	}
	wantNoLeaks(t, map[string]string{"health": health, "provider.state events": events, "the report method": report,
		"the log file": logFile, "the host's stderr": h.stderr.String(), "gnosis-host report": string(command)})
}

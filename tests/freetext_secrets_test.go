package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/gnosis/gnosis/internal/testwait"
)

// Every secret the free-text tests plant contains this.
const planted = "PLANTED"

// chattyScript writes, on stderr, a credential of each kind free text
// carries, and the value of a secret-named variable of its environment
// under no name at all; then it exits, so its stderr reaches health.
const chattyScript = `echo "login failed: password PLANTEDpw" >&2
echo "using session cookie zQ8PLANTEDck" >&2
echo "GET /v1 Authorization: Bearer PLANTEDbearer123" >&2
echo "the token is PLANTEDtok77" >&2
echo "api key PLANTEDak-99 was refused" >&2
echo "connecting with $SERVICE_API_KEY" >&2
exit 3`

// freeTextConfig is a config with the chatty provider (its API key known
// from its env) beside a working one, logging at debug.
func freeTextConfig(f *fake) *Config {
	cfg := standardConfig(f)
	cfg.Providers = append(cfg.Providers, ProviderConfig{Name: "chatty", Command: "/bin/sh", Args: []string{"-c", chattyScript},
		Prefix: "chatty", Timeout: "5s", Env: map[string]string{"SERVICE_API_KEY": "PLANTEDenv-55"}})
	return cfg
}

// stopAndRead ends host h (its input closed) and returns the events it
// sent, one a line, and its log file.
func stopAndRead(t *testing.T, h *host) (events, logFile string) {
	t.Helper()
	h.mu.Lock()
	var b strings.Builder
	for _, n := range h.nulls {
		b.Write(n.raw)
		b.WriteByte('\n')
	}
	h.mu.Unlock()
	h.closeStdin()
	if _, ok := h.waitExit(replyTimeout); !ok {
		t.Fatal("host did not exit")
	}
	data, err := os.ReadFile(filepath.Join(h.dir, "cache", "gnosis", "gnosis-host.log"))
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), string(data)
}

// wantNoLeaks fails for each of outputs (by name) that holds a planted
// secret, showing the lines that do.
func wantNoLeaks(t *testing.T, outputs map[string]string) {
	t.Helper()
	for name, text := range outputs {
		if l := leaks(text); len(l) > 0 {
			t.Errorf("%s leaks a planted secret:\n%s", name, strings.Join(l, "\n"))
		}
	}
}

// leaks is every line of text that holds a planted secret.
func leaks(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, planted) {
			out = append(out, l)
		}
	}
	return out
}

// TestSecretsInFreeTextAreMaskedEverywhere plants a secret of each kind —
// in a server's stderr as prose (password X, session cookie X, token is X,
// api key X, Bearer X), as the value of a secret-named env variable quoted
// under no name, in a request's secret-named field repeated in a plain one
// (at debug level), in providers.check's env echoed on stderr — and
// searches every output: health, provider.state events, providers.check,
// the report method, the host's log file and stderr.
func TestSecretsInFreeTextAreMaskedEverywhere(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	h := startHost(t, hostOptions{config: freeTextConfig(f), env: []string{"GNOSIS_LOG_LEVEL=debug"}})
	var health string
	testwait.Until(t, replyTimeout, func() error {
		var hr healthReply
		r := h.call("health", nil)
		json.Unmarshal(r.raw, &hr)
		health = string(r.raw)
		if providerState(hr, "munim") == "ready" && providerState(hr, "chatty") == "down" && strings.Contains(health, "connecting with") {
			return nil
		}
		return fmt.Errorf("want munim ready and chatty down with its stderr, got %s", r.raw)
	})
	for _, want := range []string{"password [redacted]", "session cookie [redacted]", "token is [redacted]", "api key [redacted] was refused", "connecting with [redacted]"} {
		if !strings.Contains(health, want) {
			t.Errorf("health's stderr lacks %q: %s", want, health)
		}
	}

	wantOK(t, h.execute("computer.echo", map[string]any{"password": "PLANTEDarg-42", "text": "I typed PLANTEDarg-42 in the box"}))

	check := h.call("providers.check", map[string]any{"command": "/bin/sh", "args": []string{"-c", `echo "with $MY_TOKEN" >&2; exit 4`},
		"env": map[string]string{"MY_TOKEN": "PLANTEDchk-31", "GNOSIS_TEST_MARK": h.mark}})
	wantOK(t, check)
	if !strings.Contains(string(check.raw), "with [redacted]") {
		t.Errorf("providers.check does not show the masked stderr: %s", check.raw)
	}

	r := h.call("report", nil)
	wantOK(t, r)
	var report string
	r.field(t, "text", &report)
	if !strings.Contains(report, "the value after password, passphrase, secret, token") {
		t.Errorf("the report does not say what it redacts:\n%s", report)
	}

	events, logFile := stopAndRead(t, h)
	if !strings.Contains(logFile, `"text":"I typed [redacted] in the box"`) {
		t.Errorf("the debug log does not show the execute's arguments, masked:\n%s", logFile)
	}
	wantNoLeaks(t, map[string]string{"health": health, "provider.state events": events, "providers.check": string(check.raw),
		"the report method": report, "the log file": logFile, "the host's stderr": h.stderr.String()})
}

// TestReportCommandMasksSecretsInFreeText: `gnosis-host report`, whose
// self-test starts the registered host, leaks none of the chatty server's
// credentials.
func TestReportCommandMasksSecretsInFreeText(t *testing.T) {
	testshort.Parallel(t)
	h := newRegHome(t)
	h.install(t, hostBin, "chrome")
	f := newFake(t)
	b, _ := json.Marshal(freeTextConfig(f))
	cfg := filepath.Join(h.config, "gnosis", "config.json")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	writeFile(t, cfg, b)
	cmd := exec.Command(hostBin, "report")
	cmd.Env = h.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gnosis-host report: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "chatty (prefix chatty): down") || !strings.Contains(string(out), "session cookie [redacted]") {
		t.Errorf("the report does not show the chatty server's masked stderr:\n%s", out)
	}
	if l := leaks(string(out)); len(l) > 0 {
		t.Errorf("gnosis-host report leaks a planted secret:\n%s", strings.Join(l, "\n"))
	}
}

package tests

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/host/register"
	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/gnosis/gnosis/internal/testwait"
)

// formsScript writes on stderr its API key (known to the host from the
// provider's env) in the forms free text carries it in — base64, inside a
// Basic credential, cut over two lines (after its ninth byte and after its
// first) — then, from variables whose names say nothing (so only the
// patterns can tell), a password on the line after "Password:", a JSON
// password with an escaped quote in it, and an OpenSSH private key; then it
// exits. Every secret holds "PLANTED"; the script itself holds none, as
// providers.list shows it (an argument).
const formsScript = `v=$SERVICE_API_KEY
printf 'auth %s\n' "$(printf %s "$v" | base64)" >&2
printf 'creds %s\n' "$(printf 'ann:%s' "$v" | base64)" >&2
printf 'key %s\n%s end\n' "${v%????}" "${v#?????????}" >&2
printf 'one %s\n%s end\n' "${v%????????????}" "${v#?}" >&2
echo "Password:" >&2
echo "$ANSWER ok" >&2
printf '{"user":"ann","password":"%s\\"%s"}\n' "$JS_HEAD" "$JS_TAIL" >&2
echo "-----BEGIN OPENSSH PRIVATE KEY-----" >&2
echo "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU$BODY_ONE" >&2
echo "$BODY_TWO" >&2
echo "-----END OPENSSH PRIVATE KEY-----" >&2
exit 3`

// formsEnv is formsScript's environment: its API key and the values only
// the patterns can tell.
func formsEnv(key string) map[string]string {
	return map[string]string{"SERVICE_API_KEY": key, "ANSWER": "PLANTEDprompt-77", "JS_HEAD": "PLANTEDjs", "JS_TAIL": "PLANTEDtail",
		"BODY_ONE": "PLANTEDkey1AAAA", "BODY_TWO": "PLANTEDkey2AAAAtzc2gtZWQyNTUxOQ=="}
}

// TestFreeTextFormsAreMaskedEverywhere plays the forms a secret takes in a
// server's stderr and the host's outputs, and searches every one of them:
// health, the provider.state events, providers.list (which also shows the
// server's arguments, one a secret), providers.check of the same script,
// the report method, the log file at debug, the host's stderr and
// `gnosis-host report`.
func TestFreeTextFormsAreMaskedEverywhere(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	cfg := standardConfig(f)
	cfg.Providers = append(cfg.Providers, ProviderConfig{Name: "forms", Command: "/bin/sh",
		Args:   []string{"-c", formsScript, "forms", "--api-key=PLANTEDarg-31", "--token", "PLANTEDarg-32"},
		Prefix: "forms", Timeout: "5s", Env: formsEnv("PLANTEDenv-55")})
	h := startHost(t, hostOptions{config: cfg, env: []string{"GNOSIS_LOG_LEVEL=debug"}})
	var health string
	testwait.Until(t, replyTimeout, func() error {
		var hr healthReply
		r := h.call("health", nil)
		json.Unmarshal(r.raw, &hr)
		health = string(r.raw)
		if providerState(hr, "forms") == "down" && strings.Contains(health, "END OPENSSH PRIVATE KEY") {
			return nil
		}
		return fmt.Errorf("want forms down with its stderr, got %s", r.raw)
	})
	for _, want := range []string{`Password:\n[redacted]`, `BEGIN OPENSSH PRIVATE KEY-----\n[redacted]\n[redacted]\n-----END`, `\"password\":\"[redacted]\"}`} {
		if !strings.Contains(health, want) {
			t.Errorf("health's stderr lacks %s: %s", want, health)
		}
	}
	list := h.call("providers.list", map[string]any{})
	wantOK(t, list)
	if !strings.Contains(string(list.raw), `"--api-key=[redacted]","--token","[redacted]"`) {
		t.Errorf("providers.list does not show the arguments masked: %s", list.raw)
	}
	checkEnv := formsEnv("PLANTEDchk-55")
	checkEnv["GNOSIS_TEST_MARK"] = h.mark
	check := h.call("providers.check", map[string]any{"command": "/bin/sh", "args": []string{"-c", formsScript}, "env": checkEnv})
	wantOK(t, check)
	r := h.call("report", nil)
	wantOK(t, r)
	var report string
	r.field(t, "text", &report)

	events, logFile := stopAndRead(t, h)
	for _, want := range []string{`"message":"Password:"`, `"message":"[redacted]"`, `"message":"-----BEGIN OPENSSH PRIVATE KEY-----"`} {
		if !strings.Contains(logFile, want) {
			t.Errorf("the log lacks %s:\n%s", want, logFile)
		}
	}
	command, err := reportOf(h)
	if err != nil {
		t.Fatalf("gnosis-host report: %v\n%s", err, command)
	}
	outputs := map[string]string{"health": health, "provider.state events": events, "providers.list": string(list.raw),
		"providers.check": string(check.raw), "the report method": report, "the log file": logFile,
		"the host's stderr": h.stderr.String(), "gnosis-host report": string(command)}
	wantNoLeaks(t, outputs)
	for name, text := range outputs {
		for _, key := range []string{"PLANTEDenv-55", "PLANTEDchk-55"} {
			for _, enc := range []string{base64.StdEncoding.EncodeToString([]byte(key)), base64.StdEncoding.EncodeToString([]byte("ann:" + key))} {
				if strings.Contains(text, enc) {
					t.Errorf("%s leaks %s's base64 %s", name, key, enc)
				}
			}
		}
	}
}

// reportOf runs `gnosis-host report` (without its self-test) as the user of
// host h: its configuration, its log.
func reportOf(h *host) ([]byte, error) {
	cmd := exec.Command(hostBin, "report", "--no-self-test")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.dir, "XDG_CONFIG_HOME=" + filepath.Join(h.dir, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(h.dir, "cache"), "GNOSIS_CONFIG=" + filepath.Join(h.dir, "config.json"),
		register.EnvSystemRoot + "=" + filepath.Join(h.dir, "system-root")}
	return cmd.CombinedOutput()
}

package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/gnosis/gnosis/internal/testwait"
)

// Every secret the report tests seed contains this, so that one search
// finds any that leaks.
const seed = "SEKRET"

// secretConfig is a configuration with a distinct secret in every place one
// can hide: provider env values, arguments, header values, a secret-named
// field, a relay URL's credentials and query. The leaky provider prints its
// arguments and environment on stderr and exits, so they reach its health
// and the log too.
func secretConfig() string {
	c := map[string]any{
		"providers": []any{
			map[string]any{"name": "munim", "command": fakemunimBin, "prefix": "computer",
				"env":     map[string]string{"GITHUB_TOKEN": seed + "-ENV-1", "PLAIN_SETTING": seed + "-ENV-2"},
				"headers": map[string]string{"Authorization": "Bearer " + seed + "-HDR-3", "X-Custom": seed + "-HDR-4"}},
			map[string]any{"name": "leaky", "command": "/bin/sh", "prefix": "leaky",
				"args": []string{"-c", `echo "leaking $0 $1 $LEAKY_TOKEN $PLAIN $OPENAI_API_KEY" >&2; exit 3`,
					seed + "-ARG-5", "--password=" + seed + "-ARG-6"},
				"env": map[string]string{"LEAKY_TOKEN": seed + "-ENV-7", "PLAIN": seed + "-ENV-8"}},
		},
		"relay":  map[string]any{"allow": []string{"https://user:" + seed + "-URL-9@api.example.com/v1?key=" + seed + "-URL-10"}},
		"apiKey": seed + "-FIELD-11",
		"policy": map[string]any{"default": []string{"*"}},
		"log":    map[string]any{"level": "debug"},
	}
	b, _ := json.MarshalIndent(c, "", "  ")
	return string(b)
}

// processSecret is a secret in the environment of the command (and so of
// the host and its providers).
const processSecret = "OPENAI_API_KEY=" + seed + "-PROC-12"

// seedLog appends lines with secrets to the host's log, as a debug log, a
// relay error, a provider quoting the environment and a line that is not
// JSON would hold them.
func seedLog(t *testing.T, file string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(file), 0o700)
	f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range []string{
		`{"level":"debug","message":"execute","arguments":{"password":"` + seed + `-LOG-13","text":"hello"}}`,
		`{"level":"info","message":"relay GET https://api.example.com/v1/models Authorization: Bearer ` + seed + `-LOG-14"}`,
		`{"level":"info","message":"the key is ` + seed + `-PROC-12 from the environment"}`,
		`{"level":"warn","error":"upstream said: api_key=` + seed + `-LOG-15 is invalid"}`,
		`not JSON at all: token=` + seed + `-LOG-16`,
		`{"level":"info","provider":"munim","message":"using ` + seed + `-ENV-2 and ` + seed + `-ARG-5"}`,
	} {
		f.WriteString(l + "\n")
	}
}

// checkReport fails for every line of the report that carries a seeded
// secret or the home folder, and for what a useful report must still show.
func checkReport(t *testing.T, text, home string) {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, seed) {
			t.Errorf("report line %d leaks a secret: %s", i+1, l)
		}
		if strings.Contains(l, home) {
			t.Errorf("report line %d shows the home folder: %s", i+1, l)
		}
	}
	for _, want := range []string{
		"protocol: 2",
		`"GITHUB_TOKEN": "[redacted]"`,
		`"Authorization": "[redacted]"`,
		`"--password=[redacted]"`,
		`"-c"`,
		`"command": "/bin/sh"`,
		`"prefix": "leaky"`,
		`"https://api.example.com/v1?key=[redacted]"`,
		`"apiKey": "[redacted]"`,
		"leaking [redacted] --password=[redacted] [redacted] [redacted] [redacted]",
		`"message":"serving"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Down, or already starting again once its backoff ran out (a loaded machine).
	if !strings.Contains(text, "leaky (prefix leaky): down") && !strings.Contains(text, "leaky (prefix leaky): starting") {
		t.Errorf("report does not show the failing provider as down or starting again")
	}
	if t.Failed() {
		t.Logf("report:\n%s", text)
	}
}

// TestReportLeaksNoSecret: `gnosis-host report`, with doctor's self-test of
// the registered host, shows the configuration's structure, the providers'
// states and the log, and none of the secrets of the configuration, the
// environment or the log.
func TestReportLeaksNoSecret(t *testing.T) {
	testshort.Parallel(t)
	h := newRegHome(t)
	h.install(t, hostBin, "chrome")
	cfg := filepath.Join(h.config, "gnosis", "config.json")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	writeFile(t, cfg, []byte(secretConfig()))
	seedLog(t, filepath.Join(h.home, ".cache", "gnosis", "gnosis-host.log"))

	cmd := exec.Command(hostBin, "report")
	cmd.Env = append(h.env(), processSecret)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gnosis-host report: %v\n%s", err, stderr.String())
	}
	text := string(out)
	checkReport(t, text, h.home)
	if !strings.Contains(text, "munim (prefix computer): ready") {
		t.Errorf("report does not show the ready provider:\n%s", text)
	}
	if !regexp.MustCompile(`chrome +self-test +ok`).MatchString(text) {
		t.Errorf("report does not carry doctor's self-test of the registered host:\n%s", text)
	}
}

// TestReportMethodLeaksNoSecretAndStartsNoHost: the host's report method
// gives the same redacted text from the host's own state: no secret of the
// configuration, the environment or the log, and no second host started
// (the log has one "serving" line, this host's, when the reply is in).
func TestReportMethodLeaksNoSecretAndStartsNoHost(t *testing.T) {
	testshort.Parallel(t)
	h := startHost(t, hostOptions{rawConfig: secretConfig(), env: []string{processSecret}})
	testwait.Until(t, replyTimeout, func() error {
		var hr healthReply
		h.call("health", nil).field(t, "providers", &hr.Providers)
		states := map[string]string{}
		for _, p := range hr.Providers {
			states[p.Name] = p.State
		}
		if states["munim"] != "ready" || states["leaky"] != "down" {
			return fmt.Errorf("providers %v, want munim ready and leaky down", states)
		}
		return nil
	})
	logFile := filepath.Join(h.dir, "cache", "gnosis", "gnosis-host.log")
	seedLog(t, logFile)
	if r := h.execute("computer.echo", map[string]any{"apiKey": seed + "-EXEC-17", "text": "plain"}); !r.OK {
		t.Fatalf("execute: %s", r.raw)
	}
	r := h.call("report", nil)
	if !r.OK {
		t.Fatalf("report: %s", r.raw)
	}
	var text string
	r.field(t, "text", &text)
	checkReport(t, text, h.dir)
	if !strings.Contains(text, "munim (prefix computer): ready") {
		t.Errorf("report does not show the ready provider:\n%s", text)
	}
	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), `"message":"serving"`); n != 1 {
		t.Errorf("%d hosts logged serving, want only this one:\n%s", n, log)
	}
}

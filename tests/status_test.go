package tests

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/host/register"
	"github.com/gnosis/gnosis/internal/testshort"
)

// statusRun is one run of gnosis-host as a person types it.
type statusRun struct {
	stdout, stderr string
	code           int
}

// runWithConfig runs gnosis-host args with the config file holding body (as
// written, so it may be broken JSON), in a home folder of its own.
func runWithConfig(t *testing.T, body string, args ...string) statusRun {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	writeFile(t, path, []byte(body))
	cmd := exec.Command(hostBin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_DATA_HOME=" + filepath.Join(dir, "data"), "GNOSIS_CONFIG=" + path,
		register.EnvSystemRoot + "=" + filepath.Join(dir, "system-root")}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := statusRun{stdout: out.String(), stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running gnosis-host: %v", err)
	}
	return r
}

// providerConfig is a config with one provider "munim" and every capability
// granted.
func providerConfig(t *testing.T, p map[string]any) string {
	t.Helper()
	p["name"], p["prefix"] = "munim", "computer"
	b, err := json.Marshal(map[string]any{"providers": []any{p}, "policy": map[string]any{"default": []string{"*"}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// script writes an executable shell script into a temporary folder.
func script(t *testing.T, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell fixtures need a Unix shell")
	}
	path := filepath.Join(t.TempDir(), "munim")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// Fixtures: servers that fail to start in each way there is (shell
// built-ins only: the registration tests run with an empty PATH).
const (
	crashScript   = "echo 'munim: starting' >&2\necho 'munim: fatal: cannot open display :0' >&2\nexit 3\n"
	hangScript    = "echo 'munim: waiting for the desktop' >&2\nwhile read -r line; do :; done\n"
	garbageScript = "echo 'Usage: munim [--port N]'\necho 'munim: no --stdio given' >&2\nwhile read -r line; do :; done\n"
)

// TestStatusCallNamesEveryProviderThatIsNotReady: the README's connection
// check, `gnosis-host call capabilities.list`, waits for the providers, still
// prints the reply, and exits 3 naming the provider, its state and its
// reason in the server's own words, for every way a start can fail; with a
// working provider it exits 0 and says nothing on stderr.
func TestStatusCallNamesEveryProviderThatIsNotReady(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	tests := []struct {
		name   string
		config func(t *testing.T) string
		code   int
		says   []string // on stderr
	}{
		{"a working provider", func(t *testing.T) string {
			p := f.provider("munim", "computer", "5s", nil)
			return providerConfig(t, map[string]any{"command": p.Command, "env": p.Env})
		}, 0, nil},
		{"a server that exits at start", func(t *testing.T) string {
			return providerConfig(t, map[string]any{"command": script(t, crashScript)})
		}, 3, []string{"provider munim is down: exited (exit status 3) before answering initialize",
			"munim: fatal: cannot open display :0", "    munim: starting"}},
		{"a server that never answers within its startTimeout", func(t *testing.T) string {
			return providerConfig(t, map[string]any{"command": script(t, hangScript), "startTimeout": "1s"})
		}, 3, []string{"provider munim is down: did not answer initialize within 1s (startTimeout)",
			"munim: waiting for the desktop"}},
		{"a server that writes non-JSON on stdout", func(t *testing.T) string {
			return providerConfig(t, map[string]any{"command": script(t, garbageScript), "startTimeout": "1s"})
		}, 3, []string{`wrote non-JSON on stdout instead of answering initialize: "Usage: munim [--port N]"`,
			"munim: no --stdio given"}},
		{"a server that is not there", func(t *testing.T) string {
			return providerConfig(t, map[string]any{"command": filepath.Join(t.TempDir(), "munim")})
		}, 3, []string{"provider munim is down: starting ", "no such file or directory"}},
		{"no provider at all", func(t *testing.T) string { return `{"policy":{"default":[]}}` },
			3, []string{"configuration: no provider configured"}},
		{"a config that is not valid JSON", func(t *testing.T) string {
			return "{\n  \"providers\": [\n    {\"name\": \"munim\",, \"command\": \"munim\"}\n  ]\n}\n"
		}, 3, []string{"config.json: line 3, column 22: invalid character ','"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runWithConfig(t, tc.config(t), "call", "capabilities.list")
			if r.code != tc.code {
				t.Errorf("exit status %d, want %d\nstderr:\n%s", r.code, tc.code, r.stderr)
			}
			var reply struct {
				OK bool `json:"ok"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &reply); err != nil || !reply.OK {
				t.Errorf("stdout is not the ok reply: %v\n%s", err, r.stdout)
			}
			for _, want := range tc.says {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if tc.code == 0 && r.stderr != "" {
				t.Errorf("stderr of a healthy call:\n%s", r.stderr)
			}
		})
	}
}

// TestStatusHealthCarriesTheServersStderr: health's provider entry has the
// reason and, in "stderr", the server's last lines; a call to one of its
// capabilities is PROVIDER_UNAVAILABLE with the same lines in its details.
func TestStatusHealthCarriesTheServersStderr(t *testing.T) {
	testshort.Parallel(t)
	cfg := providerConfig(t, map[string]any{"command": script(t, crashScript)})
	r := runWithConfig(t, cfg, "call", "health")
	var h struct {
		Status    string `json:"status"`
		Providers []struct {
			State  string `json:"state"`
			Error  string `json:"error"`
			Stderr string `json:"stderr"`
		} `json:"providers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil || len(h.Providers) != 1 {
		t.Fatalf("health reply: %v\n%s", err, r.stdout)
	}
	p := h.Providers[0]
	// Down, or already starting again once its backoff ran out (a loaded
	// machine gets there first): either way with the last failure's reason.
	if h.Status != "degraded" || (p.State != "down" && p.State != "starting") || !strings.Contains(p.Error, "exited (exit status 3)") {
		t.Errorf("health: %s", r.stdout)
	}
	if want := "munim: starting\nmunim: fatal: cannot open display :0"; p.Stderr != want {
		t.Errorf("health's stderr = %q, want %q", p.Stderr, want)
	}

	r = runWithConfig(t, cfg, "call", "execute", `{"capability":"computer.click","arguments":{}}`)
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Details struct {
			Provider string `json:"provider"`
			State    string `json:"state"`
			Stderr   string `json:"stderr"`
		} `json:"details"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
		t.Fatalf("execute reply: %v\n%s", err, r.stdout)
	}
	if r.code != 1 || e.Code != "PROVIDER_UNAVAILABLE" || !strings.Contains(e.Message, "munim: fatal: cannot open display :0") ||
		e.Details.Provider != "munim" || e.Details.State != "down" || !strings.Contains(e.Details.Stderr, "munim: starting") {
		t.Errorf("exit status %d, reply:\n%s", r.code, r.stdout)
	}
}

// TestStatusStderrIsBounded: a server that floods stderr before it dies
// shows only its last lines, at most 4 KiB, each cut at a sane length and
// valid UTF-8.
func TestStatusStderrIsBounded(t *testing.T) {
	testshort.Parallel(t)
	flood := "i=0\nwhile [ $i -lt 500 ]; do printf 'line %d %0900d\\n' $i 0 >&2; i=$((i+1)); done\n" +
		"printf 'bad \\377 byte\\n' >&2\nexit 1\n"
	r := runWithConfig(t, providerConfig(t, map[string]any{"command": script(t, flood)}), "call", "health")
	var h struct {
		Providers []struct {
			Stderr string `json:"stderr"`
		} `json:"providers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil || len(h.Providers) != 1 {
		t.Fatalf("health reply: %v\n%s", err, r.stdout)
	}
	s := h.Providers[0].Stderr
	lines := strings.Split(s, "\n")
	if len(s) > 4096 || len(lines) > 20 || len(lines) < 2 {
		t.Errorf("stderr holds %d bytes in %d lines, want at most 4096 in at most 20", len(s), len(lines))
	}
	if last := lines[len(lines)-1]; last != "bad \uFFFD byte" {
		t.Errorf("last line %q, want the invalid byte replaced", last)
	}
	if first := lines[0]; len(first) > 600 || !strings.HasPrefix(first, "line 4") {
		t.Errorf("first kept line is %d bytes: %.60q", len(first), first)
	}
}

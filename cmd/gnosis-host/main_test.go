package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/host/launch"
)

// TestMain lets the test binary act as the host: call re-executes
// os.Executable() with the extension origin, exactly as a browser would, and
// that child must then serve rather than run tests.
func TestMain(m *testing.M) {
	if launch.Parse(os.Args[1:]).Kind == launch.Browser {
		os.Exit(run(os.Args[1:], os.Stderr))
	}
	os.Exit(m.Run())
}

// captureStdout runs f with os.Stdout redirected and returns what it printed.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() { b, _ := io.ReadAll(r); done <- string(b) }()
	defer func() { os.Stdout = saved }()
	f()
	w.Close()
	return <-done
}

// withConfig points the host at a config file with no provider and a log in
// the test's temporary folder.
func withConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	body, _ := json.Marshal(map[string]any{"log": map[string]any{"file": filepath.Join(dir, "host.log")}})
	if err := os.WriteFile(cfg, body, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GNOSIS_CONFIG", cfg)
	t.Setenv("MUNIM_PATH", "")
}

func TestRunDispatch(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		status int
		stderr string
	}{
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"help", []string{"help"}, 0, ""},
		{"version", []string{"version"}, 0, ""},
		{"call without a method", []string{"call"}, 2, ""},
		{"call with params that are not an object", []string{"call", "health", "[1]"}, 1, "params must be a JSON object"},
		{"call with a bad flag", []string{"call", "--bogus", "health"}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			var status int
			captureStdout(t, func() { status = run(tt.args, &stderr) })
			if status != tt.status {
				t.Errorf("status = %d, want %d (stderr %q)", status, tt.status, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tt.stderr)
			}
		})
	}
}

func TestVersionPrintsTheBuildVersion(t *testing.T) {
	saved := version
	version = "1.2.3-test"
	defer func() { version = saved }()
	got := captureStdout(t, func() { run([]string{"version"}, io.Discard) })
	if diff := cmp.Diff("gnosis-host 1.2.3-test\n", got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCallTalksToARealHostProcess runs call end to end: a child host process
// (this test binary, started as a browser starts the host) answers over pipes.
func TestCallTalksToARealHostProcess(t *testing.T) {
	withConfig(t)
	long := strings.Repeat("m", 3000) // its error reply is above the 1024-byte frame limit below
	t.Setenv("GNOSIS_MAX_FRAME", "1024")
	tests := []struct {
		name   string
		args   []string
		status int
		want   map[string]any // selected fields of the printed reply
	}{
		{"list answers the meta-capabilities without providers, and exits 3", []string{"capabilities.list"}, exitNotReady,
			map[string]any{"id": 1.0, "ok": true}},
		{"health is degraded without providers, and exits 3", []string{"health"}, exitNotReady,
			map[string]any{"id": 1.0, "ok": true, "status": "degraded"}},
		{"a failure reply exits 1", []string{"capabilities.describe", `{"name":"computer.nothing"}`}, 1,
			map[string]any{"id": 1.0, "ok": false, "code": "CAPABILITY_NOT_FOUND"}},
		{"a chunked reply is reassembled", []string{long}, 1,
			map[string]any{"id": 1.0, "ok": false, "code": "UNKNOWN_METHOD"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			out := captureStdout(t, func() { err = runCall(tt.args) })
			status := 0
			var code exitCode
			if errors.As(err, &code) {
				status = int(code)
			} else if err != nil {
				t.Fatalf("call: %v", err)
			}
			if status != tt.status {
				t.Errorf("status = %d, want %d", status, tt.status)
			}
			if strings.HasPrefix(tt.name, "a chunked") && len(out) <= 1024 {
				t.Errorf("reply of %d bytes fits one 1024-byte frame: chunking not exercised", len(out))
			}
			if !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
				t.Errorf("output is not one line: %q", out)
			}
			var reply map[string]any
			if err := json.Unmarshal([]byte(out), &reply); err != nil {
				t.Fatalf("output is not JSON: %v: %.300s", err, out)
			}
			got := map[string]any{}
			for k := range tt.want {
				got[k] = reply[k]
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
		})
	}
}

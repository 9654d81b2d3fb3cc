package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/testshort"
)

// TestExecuteArgumentsStayOutOfTheLog: at the default level (info) an
// execute whose arguments hold a password, a token in a URL and typed text
// leaves none of them in the log file or on stderr, only what ran and how it
// went; at debug the arguments appear with the secrets redacted.
func TestExecuteArgumentsStayOutOfTheLog(t *testing.T) {
	testshort.Parallel(t)
	const (
		password = "hunter2-correct-horse"
		token    = "tok3n-abcdef123456"
		typed    = "dear diary, today I typed this"
	)
	args := map[string]any{
		"user":     "ann",
		"password": password,
		"url":      "https://mail.example/login?next=%2F&access_token=" + token,
		"note":     typed,
	}
	secrets := []string{password, token}

	t.Run("info", func(t *testing.T) {
		lines, all := executeLines(t, "info", args)
		for _, s := range append(secrets, typed) {
			if strings.Contains(all, s) {
				t.Errorf("%q is in the log at info:\n%s", s, all)
			}
		}
		if len(lines) != 1 {
			t.Fatalf("%d execute lines, want 1:\n%s", len(lines), all)
		}
		got := lines[0]
		delete(got, "duration")
		delete(got, "time")
		delete(got, "id")
		if n, _ := got["resultBytes"].(float64); n <= 0 {
			t.Errorf("execute line at info has no result size: %v", got)
		}
		delete(got, "resultBytes")
		want := map[string]any{"level": "info", "message": "execute", "capability": "computer.echo", "outcome": "ok", "argumentBytes": float64(len(mustJSON(t, args)))}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("execute line at info (-want +got):\n%s", diff)
		}
	})

	t.Run("debug", func(t *testing.T) {
		lines, all := executeLines(t, "debug", args)
		for _, s := range secrets {
			if strings.Contains(all, s) {
				t.Errorf("%q is in the log at debug:\n%s", s, all)
			}
		}
		if len(lines) != 1 {
			t.Fatalf("%d execute lines, want 1:\n%s", len(lines), all)
		}
		want := map[string]any{
			"user":     "ann",
			"password": "[redacted]",
			"url":      "https://mail.example/login?next=%2F&access_token=[redacted]",
			"note":     typed,
		}
		if diff := cmp.Diff(want, lines[0]["arguments"]); diff != "" {
			t.Errorf("arguments at debug (-want +got):\n%s", diff)
		}
	})
}

// executeLines runs one computer.echo with args on a host logging at level,
// lets it exit, and returns its execute lines from the log file and all it
// logged (the file and stderr).
func executeLines(t *testing.T, level string, args map[string]any) ([]map[string]any, string) {
	t.Helper()
	f := newFake(t)
	h := startHost(t, hostOptions{config: standardConfig(f), env: []string{"GNOSIS_LOG_LEVEL=" + level}})
	h.awaitReady()
	wantOK(t, h.execute("computer.echo", args))
	h.closeStdin()
	if _, ok := h.waitExit(replyTimeout); !ok {
		t.Fatal("host did not exit")
	}
	file, err := os.ReadFile(filepath.Join(h.dir, "cache", "gnosis", "gnosis-host.log"))
	if err != nil {
		t.Fatalf("log file: %v", err)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(file))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Errorf("log line is not JSON: %q", sc.Text())
			continue
		}
		if m["message"] == "execute" {
			lines = append(lines, m)
		}
	}
	return lines, string(file) + h.stderr.String()
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package tests

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/testshort"
)

// TestExecuteIsLoggedToTheCacheFile: every execute leaves one JSON line in
// <user cache dir>/gnosis/gnosis-host.log with its id, capability, duration
// and outcome, argument values truncated (a 100 KB argument must not be
// copied into the log); nothing of it reaches stdout.
func TestExecuteIsLoggedToTheCacheFile(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	long := strings.Repeat("secret-ish payload ", 5000)
	h.sendID("logged-ok", "execute", executeParams("computer.echo", map[string]any{"text": long}, ""))
	wantOK(t, h.await(`"logged-ok"`))
	h.sendID("logged-fail", "execute", executeParams("computer.fail", map[string]any{"message": "nope"}, ""))
	wantError(t, h.await(`"logged-fail"`), "EXECUTION_ERROR")
	h.closeStdin()
	if _, ok := h.waitExit(replyTimeout); !ok {
		t.Fatal("host did not exit")
	}

	path := filepath.Join(h.dir, "cache", "gnosis", "gnosis-host.log")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("log file: %v", err)
	}
	defer f.Close()
	found := map[string]map[string]any{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Errorf("log line is not JSON: %q", sc.Text())
			continue
		}
		if m["message"] != "execute" {
			continue
		}
		id, _ := m["id"].(string)
		if strings.HasPrefix(id, "logged-") || strings.Contains(id, "logged-") {
			if len(sc.Bytes()) > 4096 {
				t.Errorf("execute log line of %d bytes: arguments were not truncated", len(sc.Bytes()))
			}
			found[strings.Trim(id, `"`)] = m
		}
	}
	for id, outcome := range map[string]string{"logged-ok": "ok", "logged-fail": "EXECUTION_ERROR"} {
		m, ok := found[id]
		if !ok {
			t.Errorf("no execute line for %s in %s", id, path)
			continue
		}
		if m["outcome"] != outcome || m["capability"] == nil || m["duration"] == nil {
			t.Errorf("execute line for %s: %v", id, m)
		}
	}
}

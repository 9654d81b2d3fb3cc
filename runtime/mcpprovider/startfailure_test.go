package mcpprovider

import (
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/gnosis/gnosis/internal/prereq"
	rt "github.com/gnosis/gnosis/runtime"
)

// TestAFailedStartSaysWhatWentWrongInTheServersOwnWords: each way a start
// can fail has its own reason, and the server's last stderr lines reach
// health.
func TestAFailedStartSaysWhatWentWrongInTheServersOwnWords(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        Config
		unixOnly   string   // why the case cannot run on Windows, when it cannot
		nodeScript string   // run by a real node as the server, when set
		wantReason []string // substrings of the provider's error
		notReason  []string // what the provider's error must not quote
		wantStderr string   // substring of health's stderr
	}{
		{
			name:       "exits",
			cfg:        Config{Args: []string{"-fail-start"}},
			wantReason: []string{"exited (exit status 7) before answering initialize", "stderr: testserver: failing on purpose"},
			wantStderr: "testserver starting pid=",
		},
		{
			name:       "never answers",
			cfg:        Config{Args: []string{"-sleep", "1m"}, StartTimeout: 2 * time.Second},
			wantReason: []string{"did not answer initialize within 2s (startTimeout)"},
		},
		{
			name:       "writes non-JSON on stdout",
			cfg:        Config{Command: "/bin/sh", Args: []string{"-c", "echo 'Usage: munim [--port N]'; echo 'munim: no port' >&2; exec sleep 60"}, StartTimeout: 2 * time.Second},
			unixOnly:   "needs /bin/sh",
			wantReason: []string{`wrote non-JSON on stdout instead of answering initialize: "Usage: munim [--port N]"`, "stderr: munim: no port"},
			wantStderr: "munim: no port",
		},
		{
			// node's last line is its version banner; the error quotes the line that says what failed.
			name:       "a real node server that cannot load a module",
			nodeScript: `require("./no-such-module-here");`,
			// Under Wine there is no Windows node; picking the headline is
			// platform-independent and covered by the Linux run.
			unixOnly:   "needs node, which the Wine prefix has not",
			wantReason: []string{"exited (exit status 1) before answering initialize", "; stderr: Error: Cannot find module './no-such-module-here'"},
			notReason:  []string{"Node.js v"},
			wantStderr: "Node.js v",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.unixOnly != "" && goruntime.GOOS == "windows" {
				t.Skip(tc.unixOnly)
			}
			if tc.nodeScript != "" {
				node, err := exec.LookPath("node")
				if err != nil {
					prereq.Missing(t, "node", "install Node.js")
				}
				script := filepath.Join(t.TempDir(), "server.js")
				if err := os.WriteFile(script, []byte(tc.nodeScript+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				tc.cfg = Config{Command: node, Args: []string{script}}
			}
			h := startTestServer(t, tc.cfg, WithBackoff(time.Minute, time.Minute, time.Minute))
			p := h.rt.Health().Providers[0]
			if p.State != rt.StateDown {
				t.Fatalf("state = %s, want down (error %q)", p.State, p.Error)
			}
			for _, want := range tc.wantReason {
				if !strings.Contains(p.Error, want) {
					t.Errorf("error = %q, want it to say %q", p.Error, want)
				}
			}
			for _, not := range tc.notReason {
				if strings.Contains(p.Error, not) {
					t.Errorf("error = %q, quotes %q", p.Error, not)
				}
			}
			if !strings.Contains(p.Stderr, tc.wantStderr) {
				t.Errorf("stderr = %q, want it to hold %q", p.Stderr, tc.wantStderr)
			}
		})
	}
}

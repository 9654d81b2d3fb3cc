package mcpprovider

import (
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	rt "github.com/gnosis/gnosis/runtime"
)

// TestAFailedStartSaysWhatWentWrongInTheServersOwnWords: each way a start
// can fail has its own reason, and the server's last stderr lines reach
// health.
func TestAFailedStartSaysWhatWentWrongInTheServersOwnWords(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        Config
		unixOnly   bool
		wantReason []string // substrings of the provider's error
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
			unixOnly:   true,
			wantReason: []string{`wrote non-JSON on stdout instead of answering initialize: "Usage: munim [--port N]"`, "stderr: munim: no port"},
			wantStderr: "munim: no port",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.unixOnly && goruntime.GOOS == "windows" {
				t.Skip("needs /bin/sh")
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
			if !strings.Contains(p.Stderr, tc.wantStderr) {
				t.Errorf("stderr = %q, want it to hold %q", p.Stderr, tc.wantStderr)
			}
		})
	}
}

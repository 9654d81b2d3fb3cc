package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/testshort"
)

// runsGnosisHost matches a fix that runs gnosis-host: by name, or by the
// path of the binary that ran doctor when the installed one is missing.
var runsGnosisHost = regexp.MustCompile(`run: \S*gnosis-host `)

// doctorRun runs gnosis-host doctor as h, with config body (none if ""), and
// returns its output and exit status.
func doctorRun(t *testing.T, h regHome, body string) (string, int) {
	t.Helper()
	if body != "" {
		path := filepath.Join(h.config, "gnosis", "config.json")
		os.MkdirAll(filepath.Dir(path), 0o755)
		writeFile(t, path, []byte(body))
	}
	out, err := h.run(t, hostBin, "doctor")
	return out, exitStatus(t, err)
}

// exitStatus is a finished command's exit status.
func exitStatus(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	if e, ok := err.(interface{ ExitCode() int }); ok {
		return e.ExitCode()
	}
	t.Fatalf("running gnosis-host: %v", err)
	return -1
}

// TestCLIDoctorFailsAProviderThatCannotStart: doctor starts the host,
// sees the provider crash or hang, and fails its row with the reason, the
// server's stderr and the fix; the summary counts failures and warnings
// and never says all passed.
func TestCLIDoctorFailsAProviderThatCannotStart(t *testing.T) {
	testshort.Parallel(t)
	tests := []struct {
		name     string
		provider func(t *testing.T) map[string]any
		says     []string
	}{
		{"crash", func(t *testing.T) map[string]any { return map[string]any{"command": script(t, crashScript)} },
			[]string{"exited (exit status 3) before answering initialize", "fix: run it by hand to see it fail: ",
				"provider munim: its last lines on stderr:\n    munim: starting\n    munim: fatal: cannot open display :0"}},
		{"hang", func(t *testing.T) map[string]any {
			return map[string]any{"command": script(t, hangScript), "startTimeout": "1s"}
		}, []string{"did not answer initialize within 1s (startTimeout)", `fix: raise its "startTimeout" in `,
			"munim: waiting for the desktop"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newRegHome(t)
			out, code := doctorRun(t, h, providerConfig(t, tc.provider(t)))
			if code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			var row string
			for _, l := range strings.Split(out, "\n") {
				if strings.Contains(l, "provider munim") && strings.Contains(l, "FAIL") {
					row = l
				}
			}
			if row == "" {
				t.Fatalf("no FAIL row for provider munim:\n%s", out)
			}
			for _, want := range tc.says {
				if !strings.Contains(out, want) {
					t.Errorf("doctor output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "All checks passed") || !strings.Contains(out, "1 check failed") {
				t.Errorf("summary is wrong:\n%s", out)
			}
		})
	}
}

// TestCLIDoctorCountsWarningsAndFoldsAbsentBrowsers: with nothing failing
// but a warning, doctor exits 0, counts the warning and does not say all
// checks passed; the browsers neither installed nor registered take one row.
func TestCLIDoctorCountsWarningsAndFoldsAbsentBrowsers(t *testing.T) {
	testshort.Parallel(t)
	h := newRegHome(t)
	out, code := doctorRun(t, h, "") // no config file: a warning
	if code != 0 {
		t.Errorf("exit status %d, want 0:\n%s", code, out)
	}
	if strings.Contains(out, "All checks passed") || !strings.Contains(out, "No check failed; 1 warning") {
		t.Errorf("summary does not count the warning:\n%s", out)
	}
	if n := strings.Count(out, "not installed, not registered"); n != 1 {
		t.Errorf("%d rows about absent browsers, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "chrome, chrome-beta, chrome-dev") {
		t.Errorf("the absent browsers are not named:\n%s", out)
	}
}

// TestCLIDoctorNamesTheFixOfEveryFailure: every FAIL row says what to run
// (or edit); a broken config is located by line and column.
func TestCLIDoctorNamesTheFixOfEveryFailure(t *testing.T) {
	testshort.Parallel(t)
	h := newRegHome(t)
	h.haveRun(t, "chromium") // installed, not registered
	out, code := doctorRun(t, h, "{\"providers\": [\n  {\"name\": \"munim\" \"command\": \"x\"}\n]}\n")
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	fails := 0
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) < 3 || f[2] != "FAIL" {
			continue
		}
		fails++
		if !runsGnosisHost.MatchString(l) && !strings.Contains(l, "fix: ") {
			t.Errorf("FAIL row without its fix: %s", l)
		}
	}
	if fails != 2 {
		t.Errorf("%d FAIL rows, want 2 (chromium, config):\n%s", fails, out)
	}
	if !strings.Contains(out, "line 2, column 20: invalid character '\"' after object key:value pair") {
		t.Errorf("the config error is not located:\n%s", out)
	}
	if !strings.Contains(out, "2 checks failed") {
		t.Errorf("summary does not count the failures:\n%s", out)
	}
}

// install registers bin with browsers (a --browsers value) as this user.
func (h regHome) install(t *testing.T, bin, browsers string) {
	t.Helper()
	if out, err := h.run(t, bin, "install", "--browsers", browsers); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
}

// TestCLIDoctorSaysARegisteredHostWhoseProgramIsGone: a registration whose
// program was deleted is not "not installed": doctor says the program is
// gone, quotes what the browser then shows, and names a command that exists.
func TestCLIDoctorSaysARegisteredHostWhoseProgramIsGone(t *testing.T) {
	testshort.Parallel(t)
	h := newRegHome(t)
	h.install(t, hostBin, "chrome")
	installed := filepath.Join(h.data, "gnosis", "gnosis-host")
	if err := os.Remove(installed); err != nil {
		t.Fatal(err)
	}
	out, code := doctorRun(t, h, "")
	if code != 1 {
		t.Errorf("exit status %d, want 1:\n%s", code, out)
	}
	for _, want := range []string{
		"registered, but the program the manifest names is gone (moved or deleted): " + installed,
		`Google Chrome says "Specified native messaging host not found."`,
		"run: " + hostBin + " install",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not installed for Google Chrome") {
		t.Errorf("doctor calls a registered host not installed:\n%s", out)
	}
}

// TestCLICallAndDoctorNameTheBinaryBrowsersStart: when browsers are
// registered to start another gnosis-host than the one typed, call says
// which one it ran and which one they start, and doctor (which self-tests
// the registered one) warns when its version differs.
func TestCLICallAndDoctorNameTheBinaryBrowsersStart(t *testing.T) {
	testshort.Parallel(t)
	old := filepath.Join(t.TempDir(), "gnosis-host")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=0.0.1-old", "-o", old, "./cmd/gnosis-host")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building an older host: %v\n%s", err, out)
	}
	h := newRegHome(t)
	h.install(t, old, "chrome")
	installed := filepath.Join(h.data, "gnosis", "gnosis-host")

	cmd := exec.Command(hostBin, "call", "--no-wait", "health")
	cmd.Env = h.env()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("call health: %v\n%s%s", err, out, stderr.String())
	}
	want := "gnosis-host call: this ran " + hostBin + ", but chrome starts " + installed + "; `gnosis-host doctor` checks that one"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("call's stderr lacks %q:\n%s", want, stderr.String())
	}

	out, _ := doctorRun(t, h, "")
	want = installed + " is version 0.0.1-old, this command (" + hostBin + ") is dev"
	if !strings.Contains(out, want) || !strings.Contains(out, "WARN") {
		t.Errorf("doctor does not warn %q:\n%s", want, out)
	}
}

// TestCLIDoctorSaysWhyAnAnsweringHostIsDegraded: with no config file the
// registered host answers "degraded" and the doctor shows no provider row;
// the self-test row gives the host's own reason instead of pointing at
// rows that are not there.
func TestCLIDoctorSaysWhyAnAnsweringHostIsDegraded(t *testing.T) {
	testshort.Parallel(t)
	h := newRegHome(t)
	h.install(t, hostBin, "chrome")
	out, _ := doctorRun(t, h, "")
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "self-test") {
			row = l
		}
	}
	if !strings.Contains(row, "health degraded") || !strings.Contains(row, "no provider configured") {
		t.Errorf("the self-test row does not give the host's reason:\n%s", out)
	}
	if strings.Contains(out, "provider munim") || strings.Contains(row, "rows say why") {
		t.Errorf("the self-test row points at rows that are not there:\n%s", out)
	}
}

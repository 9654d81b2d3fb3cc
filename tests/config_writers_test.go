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
)

// TestInstallBesideARunningHostLosesNoChange: `gnosis-host install --munim`
// (another process) rewrites the config file while the running host stores
// the user's grants in it (policy.set). Both go through one writer that
// waits for the other, so every grant and the last install's Munim entry
// are in the file at the end.
func TestInstallBesideARunningHostLosesNoChange(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	h := startHost(t, hostOptions{config: &Config{Providers: []ProviderConfig{f.provider("files", "files", "5s", nil)},
		Policy: &Policy{Default: []string{}}}})
	h.awaitReady()
	cfgPath := filepath.Join(h.dir, "config.json")
	user := newRegHome(t)

	const installs = 6
	done := make(chan error, 1)
	go func() {
		for i := range installs {
			cmd := exec.Command(hostBin, "install", "--browsers", "chrome", "--munim", fakemunimBin, "--", fmt.Sprintf("--run=%d", i))
			cmd.Env, cmd.Dir = append(user.env(), "GNOSIS_CONFIG="+cfgPath), user.home
			if out, err := cmd.CombinedOutput(); err != nil {
				done <- fmt.Errorf("install %d: %v\n%s", i, err, out)
				return
			}
		}
		done <- nil
	}()
	var origins []string
	for finished := false; !finished || len(origins) < 10; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			finished = true
		default:
		}
		origin := fmt.Sprintf("https://site%d.example", len(origins))
		wantOK(t, h.call("policy.set", map[string]any{"origin": origin, "grants": map[string]string{"files.echo": "allow"}}))
		origins = append(origins, origin)
	}

	var file struct {
		Providers []struct {
			Name string   `json:"name"`
			Args []string `json:"args"`
		} `json:"providers"`
		Policy struct {
			Origins map[string]json.RawMessage `json:"origins"`
		} `json:"policy"`
	}
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	var lost []string
	for _, o := range origins {
		if _, ok := file.Policy.Origins[o]; !ok {
			lost = append(lost, o)
		}
	}
	if len(lost) > 0 {
		t.Errorf("%d of %d grants lost beside the installs: %v", len(lost), len(origins), lost)
	}
	var names []string
	munimArgs := ""
	for _, p := range file.Providers {
		names = append(names, p.Name)
		if p.Name == "munim" {
			munimArgs = strings.Join(p.Args, " ")
		}
	}
	if want := fmt.Sprintf("--run=%d", installs-1); munimArgs != want || len(names) != 2 {
		t.Errorf("providers %v, munim's args %q; want files and munim with %q", names, munimArgs, want)
	}
}

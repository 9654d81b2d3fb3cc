package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/host/register"
	"github.com/gnosis/gnosis/internal/testshort"
)

// runCLI runs gnosis-host with args and a config naming fakemunim.
func runCLI(t *testing.T, args ...string) (stdout string, err error) {
	t.Helper()
	f := newFake(t)
	dir := t.TempDir()
	cfg, _ := json.Marshal(standardConfig(f))
	path := filepath.Join(dir, "config.json")
	writeFile(t, path, cfg)
	cmd := exec.Command(hostBin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "GNOSIS_CONFIG=" + path,
		register.EnvSystemRoot + "=" + filepath.Join(dir, "system-root")}
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Logf("stderr:\n%s", errb.String())
	}
	return string(out), err
}

// TestCLICallCapabilitiesList: `gnosis-host call capabilities.list`, the
// quickest check that a host works, prints the reply, which lists
// fakemunim's tools.
func TestCLICallCapabilitiesList(t *testing.T) {
	testshort.Parallel(t)
	out, err := runCLI(t, "call", "capabilities.list")
	if err != nil {
		t.Fatalf("gnosis-host call capabilities.list: %v\n%s", err, out)
	}
	var r struct {
		OK           bool `json:"ok"`
		Capabilities []struct {
			Name string `json:"name"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not the JSON reply: %v\n%s", err, out)
	}
	var names []string
	for _, c := range r.Capabilities {
		names = append(names, c.Name)
	}
	if !r.OK || !slices.Contains(names, "computer.click") || !slices.Contains(names, "capabilities.list") {
		t.Errorf("reply: %s", out)
	}
}

// TestCLICallExecute runs a capability with JSON parameters from the CLI.
func TestCLICallExecute(t *testing.T) {
	testshort.Parallel(t)
	out, err := runCLI(t, "call", "execute", `{"capability":"computer.echo","arguments":{"from":"cli"}}`)
	if err != nil {
		t.Fatalf("gnosis-host call execute: %v\n%s", err, out)
	}
	var r struct {
		OK     bool `json:"ok"`
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not the JSON reply: %v\n%s", err, out)
	}
	if !r.OK || r.Result.StructuredContent["from"] != "cli" {
		t.Errorf("reply: %s", out)
	}
}

// TestCLIVersion prints a version.
func TestCLIVersion(t *testing.T) {
	testshort.Parallel(t)
	out, err := runCLI(t, "version")
	if err != nil || strings.TrimSpace(out) == "" {
		t.Fatalf("gnosis-host version: %v %q", err, out)
	}
}

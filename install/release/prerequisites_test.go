package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Without wixl the release names what is missing and its install command
// before building anything, builds and keeps every other package (with
// their checksums), and then fails naming the MSI it skipped.
func TestDistWithoutWixlKeepsTheRestAndNamesTheInstallCommand(t *testing.T) {
	slow(t)
	lookPath = func(name string) (string, error) {
		if name == "wixl" {
			return "", exec.ErrNotFound
		}
		return exec.LookPath(name)
	}
	t.Cleanup(func() { lookPath = exec.LookPath })
	t.Chdir("../..")
	out := filepath.Join(t.TempDir(), "dist")
	var log bytes.Buffer
	err := run(config{version: testVersion, out: out, downloadURL: DefaultDownloadURL, targets: []string{"windows/amd64"},
		kinds: map[string]bool{"msi": true, "zip": true, "chrome": true}, log: io.MultiWriter(&log)})
	const why = "the MSI needs wixl, not found on PATH: install with sudo apt-get install wixl (or run tests/setup.sh)"
	if err == nil || !strings.Contains(err.Error(), "gnosis-7.8.9-windows-amd64.msi ("+why+")") || !strings.Contains(err.Error(), "2 of 3 packages built and kept") {
		t.Errorf("err = %v, want it to name the skipped MSI and why", err)
	}
	if first, _, _ := strings.Cut(log.String(), "\n"); first != "skipped  "+why+"; building the rest" {
		t.Errorf("the first line does not say what is skipped and why:\n%s", log.String())
	}
	var names []string
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if d := cmp.Diff([]string{Checksums, "gnosis-7.8.9-chrome.zip", "gnosis-7.8.9-windows-amd64.zip"}, names); d != "" {
		t.Errorf("dist (-want +got):\n%s", d)
	}
	sums, _ := os.ReadFile(filepath.Join(out, Checksums))
	if strings.Count(string(sums), "\n") != 2 {
		t.Errorf("%s does not list the two packages built:\n%s", Checksums, sums)
	}
}

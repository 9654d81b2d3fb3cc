package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/host/register"
)

// After install, "Next" names the extension folder that came with the binary
// (a source checkout's extension/), or the release's packages when none did.
func TestNextStepNamesTheExtensionFolder(t *testing.T) {
	checkout := t.TempDir()
	for _, f := range []string{"bin/gnosis-host", "extension/manifest.json"} {
		os.MkdirAll(filepath.Join(checkout, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(checkout, f), nil, 0o755)
	}
	release := t.TempDir()
	os.WriteFile(filepath.Join(release, "gnosis-host"), nil, 0o755)

	tests := []struct {
		name, src string
		want      []string
	}{
		{"source checkout", filepath.Join(checkout, "bin", "gnosis-host"),
			[]string{`"Load unpacked" and pick the folder ` + filepath.Join(checkout, "extension") + ".", filepath.Join(checkout, "extension", "manifest.json")}},
		{"release without the folder", filepath.Join(release, "gnosis-host"),
			[]string{"the release's Chrome package, unzipped", "the release's Firefox package (gnosis-<version>-firefox.xpi)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := register.NextStep("gnosis-host", extensionDir(tt.src))
			for _, w := range tt.want {
				if !strings.Contains(next, w) {
					t.Errorf("next step does not say %q:\n%s", w, next)
				}
			}
		})
	}
}

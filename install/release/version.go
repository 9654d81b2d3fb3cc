package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// VersionFile is the one place the release's version is written: make build
// stamps it into gnosis-host (main.version), make dist into the host, every
// package's metadata, the extension's manifest and every file name.
// extension/manifest.json carries the same number so that the unpacked
// extension of a checkout reports the version of the host built from it
// (TestManifestVersionIsTheVersionFile keeps them in step).
const VersionFile = "VERSION"

var versionPattern = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

// readVersion reads and checks the version file.
func readVersion(name string) (string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("read the version: %w", err)
	}
	v := strings.TrimSpace(string(data))
	if err := checkVersion(v); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// checkVersion accepts MAJOR.MINOR.PATCH within what every format that
// carries it allows: Chrome's manifest (each part at most 65535), Debian and
// RPM (no "-"), and an MSI's ProductVersion (major and minor at most 255,
// build at most 65535).
func checkVersion(v string) error {
	m := versionPattern.FindStringSubmatch(v)
	if m == nil {
		return fmt.Errorf("version %q: want MAJOR.MINOR.PATCH, three numbers without leading zeros", v)
	}
	limits := []int{255, 255, 65535}
	for i, part := range m[1:] {
		n, err := strconv.Atoi(part)
		if err != nil || n > limits[i] {
			return fmt.Errorf("version %q: part %d is over %d, the most an MSI's ProductVersion allows", v, i+1, limits[i])
		}
	}
	return nil
}

package main

import (
	"encoding/json"
	"testing"
)

// The unpacked extension of a checkout reports the version of the host
// built from the same checkout: extension/manifest.json carries the
// VERSION file's number (make dist stamps it into every package anyway).
func TestManifestVersionIsTheVersionFile(t *testing.T) {
	want, err := readVersion("../../" + VersionFile)
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Version string }
	if err := json.Unmarshal(mustRead(t, "../../extension/manifest.json"), &m); err != nil {
		t.Fatal(err)
	}
	if m.Version != want {
		t.Errorf("extension/manifest.json says version %q, VERSION says %q: set the manifest's version to %[2]q", m.Version, want)
	}
}

func TestCheckVersionTakesWhatEveryPackageFormatAllows(t *testing.T) {
	for v, ok := range map[string]bool{
		"0.1.0": true, "1.2.3": true, "255.255.65535": true, "10.0.1": true,
		"256.0.0": false, "0.256.0": false, "0.0.65536": false, // MSI ProductVersion
		"1.2": false, "1.2.3.4": false, "01.2.3": false, "1.2.3-rc1": false, "v1.2.3": false, "": false, "1.2.3 ": false,
	} {
		if err := checkVersion(v); (err == nil) != ok {
			t.Errorf("checkVersion(%q) = %v, want ok %v", v, err, ok)
		}
	}
}

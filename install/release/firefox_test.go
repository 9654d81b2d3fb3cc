package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The Firefox package's manifest keeps what both browsers read, gives the
// background as scripts only, and leaves out Chrome's key, the Side Panel and
// the permissions Firefox does not offer.
func TestFirefoxManifest(t *testing.T) {
	src, err := os.ReadFile("../../extension/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	data, err := firefoxManifest(src)
	if err != nil {
		t.Fatal(err)
	}
	var chrome, firefox map[string]any
	json.Unmarshal(src, &chrome)
	if err := json.Unmarshal(data, &firefox); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"key", "side_panel", "minimum_chrome_version"} {
		if _, ok := firefox[k]; ok {
			t.Errorf("Firefox manifest keeps %q", k)
		}
	}
	got := map[string]any{
		"gecko":       firefox["browser_specific_settings"],
		"background":  firefox["background"],
		"sidebar":     firefox["sidebar_action"].(map[string]any)["default_panel"],
		"permissions": firefox["permissions"],
		"options":     firefox["options_page"],
	}
	want := map[string]any{
		"gecko":      map[string]any{"gecko": map[string]any{"id": "gnosis@gnosis.dev", "strict_min_version": "128.0"}},
		"background": map[string]any{"scripts": []any{"background.js"}, "type": "module"},
		"sidebar":    "agent/panel/sidepanel.html",
		"options":    "bridge/options/options.html",
	}
	var perms []any
	for _, p := range chrome["permissions"].([]any) {
		if p != "debugger" && p != "sidePanel" {
			perms = append(perms, p)
		}
	}
	want["permissions"] = perms
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Firefox manifest (-want +got):\n%s", d)
	}
	// The source manifest still serves Chrome: its service worker and key stay.
	if chrome["background"].(map[string]any)["service_worker"] != "background.js" || chrome["key"] == nil {
		t.Errorf("extension/manifest.json lost Chrome's entries: %v", chrome["background"])
	}
}

func TestFirefoxManifestNeedsGeckoIDAndScripts(t *testing.T) {
	for name, m := range map[string]string{
		"no gecko id":     `{"background": {"scripts": ["b.js"]}}`,
		"no scripts":      `{"browser_specific_settings": {"gecko": {"id": "a@b"}}, "background": {"service_worker": "b.js"}}`,
		"not JSON":        `{`,
		"gecko not a map": `{"browser_specific_settings": {"gecko": "a@b"}, "background": {"scripts": ["b.js"]}}`,
	} {
		if _, err := firefoxManifest([]byte(m)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// The package holds the extension at its root with Firefox's manifest, the
// host binaries under hostbin/, and no unit tests.
func TestFirefoxPackage(t *testing.T) {
	tmp := t.TempDir()
	hostbin := filepath.Join(tmp, "hostbin")
	os.MkdirAll(hostbin, 0o755)
	os.WriteFile(filepath.Join(hostbin, "gnosis-host-linux-amd64"), []byte("bin"), 0o755)
	os.WriteFile(filepath.Join(hostbin, "gnosis-host-linux-amd64.tmp"), []byte("half"), 0o755)
	xpi := filepath.Join(tmp, FirefoxPackage)
	t.Chdir("../..")
	if err := packFirefox(xpi, hostbin); err != nil {
		t.Fatal(err)
	}
	entries := zipEntries(t, xpi)
	for _, want := range []string{"manifest.json", "background.js", "shared/browser.js", "bridge/options/options.html",
		"agent/panel/sidepanel.html", "icons/icon48.png", "hostbin/gnosis-host-linux-amd64"} {
		if _, ok := entries[want]; !ok {
			t.Errorf("package lacks %s", want)
		}
	}
	var bad []string
	for name := range entries {
		if strings.HasPrefix(name, "test/") || strings.HasPrefix(name, "extension/") || strings.HasSuffix(name, ".tmp") {
			bad = append(bad, name)
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("package holds %v", bad)
	}
	manifest := filepath.Join(tmp, "manifest.json")
	extract(t, xpi, "manifest.json", manifest)
	if data := string(mustRead(t, manifest)); strings.Contains(data, `"key"`) || !strings.Contains(data, "gnosis@gnosis.dev") {
		t.Errorf("package manifest is not Firefox's:\n%s", data)
	}
}

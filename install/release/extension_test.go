package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/host/register"
	"github.com/gnosis/gnosis/internal/prereq"
	"github.com/google/go-cmp/cmp"
)

// sourceExtension reads the repository's extension, as make dist does.
func sourceExtension(t *testing.T, downloadURL string) *extension {
	t.Helper()
	t.Chdir("../..")
	x, err := readExtension(testVersion, downloadURL)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// flavourOf returns the manifest and files of one package.
func flavourOf(t *testing.T, x *extension, flavour func(map[string]any) error) (map[string]any, []string) {
	t.Helper()
	data, files, err := x.tree.packageManifest(x.manifest, x.version, flavour)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m, files
}

// What the two store packages reach is every file of the extension: a file
// neither reaches is named in a way the release tool cannot see (and would
// be missing from the packages) or is dead.
func TestTheStorePackagesTogetherShipEveryExtensionFile(t *testing.T) {
	x := sourceExtension(t, DefaultDownloadURL)
	_, chrome := flavourOf(t, x, chromeManifest)
	_, firefox := flavourOf(t, x, firefoxManifest)
	var missing []string
	for f := range x.tree.files {
		if f != "manifest.json" && !contains(chrome, f) && !contains(firefox, f) {
			missing = append(missing, f)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no package ships these files of extension/ (name them by a path from a manifest-reached file, or remove them): %v", missing)
	}
}

// The two Chrome packages: no Firefox settings or sidebar, the service
// worker only, the version stamped, the same files. The one a person loads
// unpacked keeps the public key, whose id is the one the host trusts; the
// Chrome Web Store's has none (the store refuses it).
func TestChromeManifests(t *testing.T) {
	x := sourceExtension(t, DefaultDownloadURL)
	var src map[string]any
	json.Unmarshal(x.manifest, &src)
	sw := src["background"].(map[string]any)["service_worker"]
	hand, handFiles := flavourOf(t, x, chromeManifest)
	store, storeFiles := flavourOf(t, x, chromeStoreManifest)
	for name, m := range map[string]map[string]any{"hand": hand, "store": store} {
		for _, k := range []string{"browser_specific_settings", "sidebar_action"} {
			if _, ok := m[k]; ok {
				t.Errorf("%s: Chrome manifest keeps %q", name, k)
			}
		}
		if d := cmp.Diff(map[string]any{"service_worker": sw, "type": "module"}, m["background"]); d != "" {
			t.Errorf("%s: Chrome background (-want +got):\n%s", name, d)
		}
		if m["version"] != testVersion || m["side_panel"] == nil || !contains(handFiles, sw.(string)) {
			t.Errorf("%s: Chrome manifest: version %v, side_panel %v, ships the service worker %v", name, m["version"], m["side_panel"], contains(handFiles, sw.(string)))
		}
	}
	if d := cmp.Diff(handFiles, storeFiles); d != "" {
		t.Errorf("the Chrome packages ship different files (-hand +store):\n%s", d)
	}
	if _, ok := store["key"]; ok {
		t.Error("the Chrome Web Store package keeps \"key\"")
	}
	delete(hand, "key")
	if d := cmp.Diff(hand, store); d != "" {
		t.Errorf("the Chrome packages' manifests differ by more than the key (-hand +store):\n%s", d)
	}
	id, err := extensionID(src["key"].(string))
	if err != nil || id != register.ExtensionID {
		t.Errorf("the key of extension/manifest.json gives the id %q (%v), want register.ExtensionID %s", id, err, register.ExtensionID)
	}
}

// The Firefox package's manifest keeps what Firefox reads, gives the
// background as scripts only, and leaves out Chrome's key, the Side Panel,
// the permissions Firefox does not offer and those only the browser agent
// (not in the package) uses: webRequest and unlimitedStorage.
func TestFirefoxManifest(t *testing.T) {
	x := sourceExtension(t, DefaultDownloadURL)
	m, _ := flavourOf(t, x, firefoxManifest)
	var src map[string]any
	json.Unmarshal(x.manifest, &src)
	for _, k := range []string{"key", "side_panel", "minimum_chrome_version"} {
		if _, ok := m[k]; ok {
			t.Errorf("Firefox manifest keeps %q", k)
		}
	}
	gecko := m["browser_specific_settings"].(map[string]any)["gecko"].(map[string]any)
	got := map[string]any{"id": gecko["id"], "data": gecko["data_collection_permissions"], "background": m["background"], "version": m["version"]}
	want := map[string]any{"id": "gnosis@gnosis.dev", "data": map[string]any{"required": []any{"websiteContent"}},
		"background": map[string]any{"scripts": src["background"].(map[string]any)["scripts"], "type": "module"}, "version": testVersion}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Firefox manifest (-want +got):\n%s", d)
	}
	var perms []any
	for _, p := range src["permissions"].([]any) {
		if p != "debugger" && p != "sidePanel" && p != "webRequest" && p != "unlimitedStorage" {
			perms = append(perms, p)
		}
	}
	if len(perms) == len(src["permissions"].([]any)) {
		t.Fatalf("the source manifest asks for none of debugger, sidePanel, webRequest, unlimitedStorage: %v", src["permissions"])
	}
	if d := cmp.Diff(perms, m["permissions"]); d != "" {
		t.Errorf("Firefox permissions (-want +got):\n%s", d)
	}
}

// ourKey is the public key of extension/manifest.json.
func ourKey(t *testing.T) string {
	t.Helper()
	var m struct{ Key string }
	if err := json.Unmarshal(mustRead(t, "../../extension/manifest.json"), &m); err != nil {
		t.Fatal(err)
	}
	return m.Key
}

func TestManifestFlavoursNeedTheirEntries(t *testing.T) {
	for name, c := range map[string]struct {
		m       string
		flavour func(map[string]any) error
	}{
		"firefox: no gecko id":      {`{"background": {"scripts": ["b.js"]}}`, firefoxManifest},
		"firefox: no scripts":       {`{"browser_specific_settings": {"gecko": {"id": "a@b"}}, "background": {"service_worker": "b.js"}}`, firefoxManifest},
		"firefox: gecko not a map":  {`{"browser_specific_settings": {"gecko": "a@b"}, "background": {"scripts": ["b.js"]}}`, firefoxManifest},
		"chrome: no service worker": {`{"key": "` + ourKey(t) + `", "background": {"scripts": ["b.js"]}}`, chromeManifest},
		"chrome: no key":            {`{"background": {"service_worker": "b.js"}}`, chromeManifest},
		"chrome: key not base64":    {`{"key": "not base64!", "background": {"service_worker": "b.js"}}`, chromeManifest},
		"chrome: another id's key":  {`{"key": "AAAA", "background": {"service_worker": "b.js"}}`, chromeManifest},
		"chrome store: no key":      {`{"background": {"service_worker": "b.js"}}`, chromeStoreManifest},
	} {
		var m map[string]any
		json.Unmarshal([]byte(c.m), &m)
		if err := c.flavour(m); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// The browser agent, and the chat bridge's browser.* tools that see or act
// on a tab, need chrome.debugger, which Firefox lacks: the Firefox package
// ships neither the Chromium entry, nor the Side Panel page, nor any code
// that calls a Chromium-only API (gated or not: Mozilla's linter flags the
// call, and code Firefox cannot run has no place in its package), nor the
// agent's web-accessible frame.
func TestTheFirefoxPackageLeavesOutTheBrowserAgent(t *testing.T) {
	x := sourceExtension(t, DefaultDownloadURL)
	var src map[string]any
	json.Unmarshal(x.manifest, &src)
	m, files := flavourOf(t, x, firefoxManifest)
	for _, chromeOnly := range []string{src["background"].(map[string]any)["service_worker"].(string), src["side_panel"].(map[string]any)["default_path"].(string)} {
		if contains(files, chromeOnly) {
			t.Errorf("the Firefox package ships %s", chromeOnly)
		}
	}
	chromiumAPI := regexp.MustCompile(`\b(chrome|browser)\.(debugger|sidePanel)\.`)
	for _, f := range files {
		if code := withoutComments(f, string(mustRead(t, filepath.Join(extensionDir, f)))); chromiumAPI.MatchString(code) {
			t.Errorf("the Firefox package's %s calls %s", f, chromiumAPI.FindString(code))
		}
	}
	// Web-accessible: nothing. The bridge's content script is one file the worker injects (no
	// module for a page to import), and the agent's frame is not shipped.
	if war, ok := m["web_accessible_resources"]; ok {
		t.Errorf("the Firefox manifest makes %v web-accessible", war)
	}
	if !contains(files, "bridge/page/content.bundle.js") {
		t.Errorf("the Firefox package lacks the bridge's content script")
	}
	panel := m["sidebar_action"].(map[string]any)["default_panel"].(string)
	if !contains(files, panel) || !bytes.Contains(mustRead(t, filepath.Join(extensionDir, panel)), []byte("needs-chromium")) {
		t.Errorf("the Firefox sidebar %s is not shipped or does not say the agent needs a Chromium browser", panel)
	}
}

// The browser packages: the manifest at the root, the release's download
// location, no tests, no development files, no executables.
func TestBrowserPackagesShipOnlyTheExtension(t *testing.T) {
	x := sourceExtension(t, "https://mirror.example/gnosis/{version}/")
	dir := t.TempDir()
	for name, flavour := range map[string]func(map[string]any) error{"chrome.zip": chromeManifest, "chrome-store.zip": chromeStoreManifest, "firefox.xpi": firefoxManifest} {
		p := filepath.Join(dir, name)
		if err := x.pack(p, flavour); err != nil {
			t.Fatal(err)
		}
		entries := zipEntries(t, p)
		for _, want := range []string{"manifest.json", ReleaseJS, "icons/icon128.png"} {
			if _, ok := entries[want]; !ok {
				t.Errorf("%s lacks %s", name, want)
			}
		}
		for e := range entries {
			data := zipFile(t, p, e)
			switch {
			case strings.HasPrefix(e, "test/") || strings.Contains(e, "/test/") || strings.HasPrefix(e, ".") || strings.HasSuffix(e, ".md"):
				t.Errorf("%s carries the development file %s", name, e)
			case bytes.HasPrefix(data, []byte("MZ")) || bytes.HasPrefix(data, []byte("\x7fELF")) || bytes.HasPrefix(data, []byte{0xcf, 0xfa, 0xed, 0xfe}):
				t.Errorf("%s carries the executable %s", name, e)
			}
		}
		if js := string(zipFile(t, p, ReleaseJS)); !strings.Contains(js, `DOWNLOAD_URL = 'https://mirror.example/gnosis/{version}/'`) {
			t.Errorf("%s's release.js does not carry the download URL it was built with:\n%s", name, js)
		}
	}
	// The committed copy keeps the project's own location.
	if js := string(mustRead(t, filepath.Join(extensionDir, ReleaseJS))); !strings.Contains(js, DefaultDownloadURL) {
		t.Errorf("packing rewrote extension/%s", ReleaseJS)
	}
}

// Mozilla's linter passes the Firefox package with nothing to say.
func TestWebExtLintPassesTheFirefoxPackageClean(t *testing.T) {
	slow(t)
	x := sourceExtension(t, DefaultDownloadURL)
	webExt := prereq.File(t, "node_modules/.bin/web-ext", "npm web-ext", prereq.NPM)
	xpi := filepath.Join(t.TempDir(), firefoxFile(testVersion))
	if err := x.pack(xpi, firefoxManifest); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(webExt, "lint", "--source-dir", xpi, "--output", "json", "--no-config-discovery")
	cmd.Env = append(os.Environ(), "NO_UPDATE_NOTIFIER=1")
	out, _ := cmd.Output() // exits 1 when it finds errors; the report says which
	var report struct {
		Summary                   struct{ Errors, Warnings, Notices int }
		Errors, Warnings, Notices []struct{ Code, File, Message string }
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("web-ext lint output is not its JSON report: %v\n%s", err, out)
	}
	if report.Summary.Errors+report.Summary.Warnings+report.Summary.Notices != 0 {
		t.Errorf("web-ext lint: %+v\nerrors %+v\nwarnings %+v\nnotices %+v", report.Summary, report.Errors, report.Warnings, report.Notices)
	}
}

// reach follows imports, markup and root-relative names, skips what only a
// comment names, and ignores names of files the extension does not have.
func TestReachFollowsWhatTheCodeNames(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"bg.js":            "import { a } from './lib/a.js';\n// import from './lib/commented.js'\n/* './lib/commented.js' */\n * lib/commented.js\nchrome.scripting.executeScript({ files: ['page/content.js'] });\nconst u = `page/view.html?x=${1}`;\nfetch('missing/nothing.js');\n",
		"lib/a.js":         "export * from '../lib/b.js';\n",
		"lib/b.js":         "export const b = 1;\n",
		"lib/commented.js": "export const c = 1;\n",
		"page/content.js":  "",
		"page/view.html":   "<!-- <script src=\"../lib/commented.js\"></script> -->\n<link rel=\"stylesheet\" href=\"view.css\">\n",
		"page/view.css":    "/* url(../lib/commented.js) */ .x { background: url(../img/a.png); }\n",
		"img/a.png":        "png",
		"test/t.test.js":   "",
		".hidden.js":       "",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := readSourceTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tree.files["test/t.test.js"] || tree.files[".hidden.js"] {
		t.Errorf("the tree holds tests or dot files: %v", tree.files)
	}
	got, err := tree.reach([]string{"bg.js"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"bg.js", "img/a.png", "lib/a.js", "lib/b.js", "page/content.js", "page/view.css", "page/view.html"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("reach (-want +got):\n%s", d)
	}
	if _, err := tree.reach([]string{"nowhere.js"}); err == nil {
		t.Error("a root that does not exist is accepted")
	}
}

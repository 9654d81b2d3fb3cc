package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/host/register"
	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/google/go-cmp/cmp"
)

// regHome is a temporary user for registration tests: a home folder with
// XDG folders inside, and a PATH holding no browser.
type regHome struct {
	home, config, data string
	path               string // PATH for the commands: no browser on it
}

func newRegHome(t *testing.T) regHome {
	t.Helper()
	home := t.TempDir()
	empty := filepath.Join(home, "empty-path")
	os.MkdirAll(empty, 0o755)
	return regHome{home: home, config: filepath.Join(home, ".config"), data: filepath.Join(home, ".local", "share"),
		path: empty}
}

// env is the environment of a command run as this user: its own home and
// XDG folders, a PATH with nothing on it, and its own system root, so that
// a Gnosis installed on the machine (the .deb's manifests under /etc) is
// neither seen nor touched.
func (h regHome) env() []string {
	return []string{"HOME=" + h.home, "XDG_CONFIG_HOME=" + h.config, "XDG_DATA_HOME=" + h.data,
		"XDG_CACHE_HOME=" + filepath.Join(h.home, ".cache"), "PATH=" + h.path, register.EnvSystemRoot + "=" + h.systemRoot()}
}

// systemRoot is where this user's system-wide folders are (Env.SystemRoot).
func (h regHome) systemRoot() string { return filepath.Join(h.home, "system-root") }

// run runs a command as this user and returns its combined output.
func (h regHome) run(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = h.env()
	cmd.Dir = h.home
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// files lists the files under the home folder (relative), leaving out the
// host's log/cache folder and the test's own PATH folder.
func (h regHome) files(t *testing.T) []string { return h.list(t, false) }

// entries is files plus folders (with a trailing slash).
func (h regHome) entries(t *testing.T) []string { return h.list(t, true) }

func (h regHome) list(t *testing.T, dirs bool) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(h.home, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(h.home, p)
		if err != nil || rel == ".cache" || rel == "empty-path" {
			if d != nil && d.IsDir() && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			out = append(out, rel)
		} else if dirs && rel != "." {
			out = append(out, rel+"/")
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// haveRun makes a browser look installed: its profile has a "Local State".
func (h regHome) haveRun(t *testing.T, dir string) {
	t.Helper()
	p := filepath.Join(h.config, dir, "Local State")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRegisterLinuxInstallDoctorUninstall drives the real binary through a
// whole life: install for the browser found (Chrome has run; nothing on
// PATH), with fakemunim as Munim; doctor passes, its self-test starting the
// registered host as Chrome would and getting health with the capability
// count; uninstall leaves the home folder as it was.
func TestRegisterLinuxInstallDoctorUninstall(t *testing.T) {
	testshort.Parallel(t)
	h := newRegHome(t)
	h.haveRun(t, "google-chrome")
	before := h.files(t)
	beforeAll := h.entries(t)

	out, err := h.run(t, hostBin, "install", "--munim", fakemunimBin)
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	for _, want := range []string{"chrome", "wrote " + filepath.Join(h.config, "google-chrome/NativeMessagingHosts/com.gnosis.host.json"), "Load unpacked"} {
		if !strings.Contains(out, want) {
			t.Errorf("install output lacks %q:\n%s", want, out)
		}
	}
	wantFiles := append([]string{
		".config/gnosis/config.json",
		".config/google-chrome/NativeMessagingHosts/com.gnosis.host.json",
		".local/share/gnosis/gnosis-host",
		".local/share/gnosis/install-record.json",
	}, before...)
	sort.Strings(wantFiles)
	if d := cmp.Diff(wantFiles, h.files(t)); d != "" {
		t.Errorf("files after install (-want +got):\n%s", d)
	}
	installed := filepath.Join(h.data, "gnosis", "gnosis-host")
	if a, b := mustRead(t, hostBin), mustRead(t, installed); !bytes.Equal(a, b) {
		t.Error("installed binary differs from the built one")
	}
	var m struct {
		Name, Path, Type string
		AllowedOrigins   []string `json:"allowed_origins"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(h.config, "google-chrome/NativeMessagingHosts/com.gnosis.host.json")), &m); err != nil {
		t.Fatal(err)
	}
	if m.Name != "com.gnosis.host" || m.Path != installed || m.Type != "stdio" ||
		!cmp.Equal(m.AllowedOrigins, []string{"chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/"}) {
		t.Errorf("manifest %+v", m)
	}

	// Idempotent: a second install changes nothing and says so.
	out, err = h.run(t, hostBin, "install", "--munim", fakemunimBin)
	if err != nil || !strings.Contains(out, "up to date") {
		t.Errorf("second install: %v\n%s", err, out)
	}

	out, err = h.run(t, hostBin, "doctor")
	if err != nil {
		t.Fatalf("doctor on a fresh install: %v\n%s", err, out)
	}
	for _, want := range []string{"self-test", "health ok, ", "provider munim", "All checks passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "health ok, 0 capabilities") {
		t.Errorf("self-test saw no capabilities from fakemunim:\n%s", out)
	}

	out, err = h.run(t, hostBin, "uninstall")
	if err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	if d := cmp.Diff(beforeAll, h.entries(t)); d != "" {
		t.Errorf("files and folders after uninstall (-before +after):\n%s\n%s", d, out)
	}
}

// TestRegisterFirefoxInstallDoctorUninstall: Firefox has run (its
// profiles.ini exists); install registers the host for it alone, in
// ~/.mozilla/native-messaging-hosts with allowed_extensions; doctor's
// self-test starts the registered host as Firefox does (manifest path, then
// our add-on id), which trusts the caller and reports fakemunim's
// capabilities; uninstall leaves the home folder as it was.
func TestRegisterFirefoxInstallDoctorUninstall(t *testing.T) {
	testshort.Parallel(t)
	h := newRegHome(t)
	profiles := filepath.Join(h.home, ".mozilla", "firefox", "profiles.ini")
	os.MkdirAll(filepath.Dir(profiles), 0o755)
	if err := os.WriteFile(profiles, []byte("[General]\nStartWithLastProfile=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	beforeAll := h.entries(t)
	out, err := h.run(t, hostBin, "install", "--munim", fakemunimBin)
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	mf := filepath.Join(h.home, ".mozilla", "native-messaging-hosts", "com.gnosis.host.json")
	for _, want := range []string{"firefox", "wrote " + mf, "about:debugging"} {
		if !strings.Contains(out, want) {
			t.Errorf("install output lacks %q:\n%s", want, out)
		}
	}
	want := []string{
		".config/gnosis/config.json",
		".local/share/gnosis/gnosis-host",
		".local/share/gnosis/install-record.json",
		".mozilla/firefox/profiles.ini",
		".mozilla/native-messaging-hosts/com.gnosis.host.json",
	}
	if d := cmp.Diff(want, h.files(t)); d != "" {
		t.Errorf("files after install (-want +got):\n%s", d)
	}
	var m map[string]any
	if err := json.Unmarshal(mustRead(t, mf), &m); err != nil {
		t.Fatal(err)
	}
	wantM := map[string]any{"name": "com.gnosis.host", "description": "Gnosis capability host",
		"path": filepath.Join(h.data, "gnosis", "gnosis-host"), "type": "stdio", "allowed_extensions": []any{"gnosis@gnosis.dev"}}
	if d := cmp.Diff(wantM, m); d != "" {
		t.Errorf("Firefox manifest (-want +got):\n%s", d)
	}

	out, err = h.run(t, hostBin, "doctor")
	if err != nil {
		t.Fatalf("doctor on a fresh Firefox install: %v\n%s", err, out)
	}
	for _, want := range []string{"firefox", "1 allowed_extensions well-formed", "health ok, ", "All checks passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "health ok, 0 capabilities") {
		t.Errorf("the host did not trust Firefox's launch of our add-on (no capabilities):\n%s", out)
	}

	if out, err := h.run(t, hostBin, "uninstall"); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	if d := cmp.Diff(beforeAll, h.entries(t)); d != "" {
		t.Errorf("files and folders after uninstall (-before +after):\n%s", d)
	}
}

// TestRegisterDoctorExitsNonZeroOnMisregistration: a relative path in the
// manifest makes doctor print the explanation and exit 1.
func TestRegisterDoctorExitsNonZeroOnMisregistration(t *testing.T) {
	testshort.Parallel(t)
	h := newRegHome(t)
	if out, err := h.run(t, hostBin, "install", "--browsers", "chromium"); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	mf := filepath.Join(h.config, "chromium/NativeMessagingHosts/com.gnosis.host.json")
	data := mustRead(t, mf)
	os.WriteFile(mf, bytes.Replace(data, []byte(filepath.Join(h.data, "gnosis")+"/"), nil, 1), 0o644)
	out, err := h.run(t, hostBin, "doctor", "--browsers", "chromium")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("doctor: err %v, want a non-zero exit\n%s", err, out)
	}
	if !strings.Contains(out, `"gnosis-host" is relative; it must be absolute`) || !strings.Contains(out, "FAIL") {
		t.Errorf("doctor does not explain the relative path:\n%s", out)
	}
}

// TestRegisterDryRunWritesNothing: --dry-run lists the actions and leaves
// the home folder alone.
func TestRegisterDryRunWritesNothing(t *testing.T) {
	testshort.Parallel(t)
	h := newRegHome(t)
	out, err := h.run(t, hostBin, "install", "--dry-run", "--browsers", "all", "--munim", "/opt/munim", "--", "--stdio")
	if err != nil {
		t.Fatalf("install --dry-run: %v\n%s", err, out)
	}
	if got := h.files(t); len(got) != 0 {
		t.Errorf("dry run wrote %v", got)
	}
	if strings.Count(out, "would write") != 11 || !strings.Contains(out, "would set provider munim = /opt/munim --stdio") {
		t.Errorf("dry run output:\n%s", out)
	}
}

// TestRegisterInstallShMatchesGoInstall: install/install.sh --all and
// `gnosis-host install --browsers all` leave the same files with the same
// contents (the manifest's path differs only by the home folder).
func TestRegisterInstallShMatchesGoInstall(t *testing.T) {
	testshort.Parallel(t)
	goHome, shHome := newRegHome(t), newRegHome(t)
	shHome.path = "/usr/bin:/bin" // the script needs its tools; --all makes browser detection moot
	if out, err := goHome.run(t, hostBin, "install", "--browsers", "all"); err != nil {
		t.Fatalf("gnosis-host install: %v\n%s", err, out)
	}
	if out, err := shHome.run(t, "sh", filepath.Join(repoRoot, "install", "install.sh"), "--all", hostBin); err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	contents := func(h regHome) map[string]string {
		m := map[string]string{}
		for _, f := range h.files(t) {
			if strings.HasSuffix(f, "install-record.json") {
				continue // the record is gnosis-host's own bookkeeping, not registration
			}
			data := mustRead(t, filepath.Join(h.home, f))
			if bytes.HasPrefix(data, []byte("\x7fELF")) {
				data = []byte("(binary, " + bytesEqualNote(data, mustRead(t, hostBin)) + ")")
			}
			m[f] = strings.ReplaceAll(string(data), h.home, "$HOME")
		}
		return m
	}
	gotGo, gotSh := contents(goHome), contents(shHome)
	if len(gotGo) != 12 {
		t.Errorf("gnosis-host install wrote %d files, want 11 manifests (10 Chromium, 1 Firefox) and the binary", len(gotGo))
	}
	if m := gotGo[".mozilla/native-messaging-hosts/com.gnosis.host.json"]; !strings.Contains(m, `"allowed_extensions": [
    "gnosis@gnosis.dev"
  ]`) {
		t.Errorf("Firefox manifest from gnosis-host install:\n%s", m)
	}
	if d := cmp.Diff(gotGo, gotSh); d != "" {
		t.Errorf("install.sh differs from gnosis-host install (-go +sh):\n%s", d)
	}
	// gnosis-host uninstall also removes what the script wrote.
	if out, err := shHome.run(t, hostBin, "uninstall"); err != nil {
		t.Fatalf("uninstall after install.sh: %v\n%s", err, out)
	}
	if got := shHome.files(t); len(got) != 0 {
		t.Errorf("uninstall left %v", got)
	}
	// gnosis-host's own uninstall also removes the folders it created.
	if out, err := goHome.run(t, hostBin, "uninstall"); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	if got := goHome.entries(t); len(got) != 0 {
		t.Errorf("uninstall left %v", got)
	}
}

func bytesEqualNote(a, b []byte) string {
	if bytes.Equal(a, b) {
		return "same as built"
	}
	return "DIFFERENT from built"
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRegisterOneClick: started with no arguments (double-click), the binary
// registers itself for the browsers found and says what it did.
func TestRegisterOneClick(t *testing.T) {
	testshort.Parallel(t)
	h := newRegHome(t)
	h.haveRun(t, "BraveSoftware/Brave-Browser")
	h.haveRun(t, "microsoft-edge")
	os.MkdirAll(filepath.Join(h.home, ".mozilla", "firefox"), 0o755)
	os.WriteFile(filepath.Join(h.home, ".mozilla", "firefox", "profiles.ini"), []byte("[General]\n"), 0o644)
	out, err := h.run(t, hostBin)
	if err != nil {
		t.Fatalf("one click: %v\n%s", err, out)
	}
	for _, want := range []string{"brave", "edge", "firefox", "Load unpacked", "Load Temporary Add-on"} {
		if !strings.Contains(out, want) {
			t.Errorf("one-click output lacks %q:\n%s", want, out)
		}
	}
	want := []string{
		".config/BraveSoftware/Brave-Browser/Local State",
		".config/BraveSoftware/Brave-Browser/NativeMessagingHosts/com.gnosis.host.json",
		".config/microsoft-edge/Local State",
		".config/microsoft-edge/NativeMessagingHosts/com.gnosis.host.json",
		".local/share/gnosis/gnosis-host",
		".local/share/gnosis/install-record.json",
		".mozilla/firefox/profiles.ini",
		".mozilla/native-messaging-hosts/com.gnosis.host.json",
	}
	if d := cmp.Diff(want, h.files(t)); d != "" {
		t.Errorf("files after one click (-want +got):\n%s", d)
	}
}

// TestRegisterSystemDryRun: --system targets the machine-wide folders
// (checked without root, as a dry run).
func TestRegisterSystemDryRun(t *testing.T) {
	testshort.Parallel(t)
	h := newRegHome(t)
	out, err := h.run(t, hostBin, "install", "--system", "--dry-run", "--browsers", "chrome,brave,chromium,edge,vivaldi")
	if err != nil {
		t.Fatalf("install --system --dry-run: %v\n%s", err, out)
	}
	root := h.systemRoot()
	for _, want := range []string{
		"chrome         would write " + root + "/etc/opt/chrome/native-messaging-hosts/com.gnosis.host.json",
		"brave          shares " + root + "/etc/opt/chrome/native-messaging-hosts/com.gnosis.host.json (written for chrome)",
		"chromium       would write " + root + "/etc/chromium/native-messaging-hosts/com.gnosis.host.json",
		"edge           would write " + root + "/etc/opt/edge/native-messaging-hosts/com.gnosis.host.json",
		"vivaldi        would write " + root + "/etc/opt/vivaldi/native-messaging-hosts/com.gnosis.host.json",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestRegisterInstallShMacOSPlacesMatchTable: on macOS (uname says Darwin)
// install.sh writes the manifests exactly where host/register's table says.
func TestRegisterInstallShMacOSPlacesMatchTable(t *testing.T) {
	testshort.Parallel(t)
	h := newRegHome(t)
	fake := filepath.Join(h.home, "fakebin")
	os.MkdirAll(fake, 0o755)
	if err := os.WriteFile(filepath.Join(fake, "uname"), []byte("#!/bin/sh\necho Darwin\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.path = fake + ":/usr/bin:/bin"
	if out, err := h.run(t, "sh", filepath.Join(repoRoot, "install", "install.sh"), "--all", hostBin); err != nil {
		t.Fatalf("install.sh as macOS: %v\n%s", err, out)
	}
	e := register.Env{GOOS: "darwin", Home: h.home}
	want := []string{"fakebin/uname", mustRel(t, h.home, e.InstalledBinary())}
	for _, b := range register.Browsers {
		if p, err := e.ManifestPath(b, register.User); err == nil {
			want = append(want, mustRel(t, h.home, p))
		}
	}
	sort.Strings(want)
	if d := cmp.Diff(want, h.files(t)); d != "" {
		t.Errorf("install.sh on macOS vs the table (-table +script):\n%s", d)
	}
}

func mustRel(t *testing.T, base, p string) string {
	t.Helper()
	r, err := filepath.Rel(base, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

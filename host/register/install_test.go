package register

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/host/config"
)

// tempEnv is a Linux Env whose home is a fresh temporary folder.
func tempEnv(t *testing.T) Env {
	t.Helper()
	home := t.TempDir()
	return Env{GOOS: "linux", Home: home, ConfigHome: filepath.Join(home, ".config"),
		DataHome: filepath.Join(home, ".local", "share"), ConfigFile: filepath.Join(home, ".config", "gnosis", "config.json"),
		SystemRoot: filepath.Join(home, "system-root")}
}

// fakeBinary writes an executable file to stand in for the host binary
// (these tests do not run it; tests/register_test.go runs the real one).
func fakeBinary(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gnosis-host")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func noPath(string) (string, error) { return "", os.ErrNotExist }

// listFiles returns every file under root, relative to it.
func listFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func TestInstallWritesManifestsBinaryRecordAndIsIdempotent(t *testing.T) {
	e := tempEnv(t)
	o := Options{Env: e, Browsers: "chrome,brave,chromium", Source: fakeBinary(t), LookPath: noPath}
	for i := 0; i < 2; i++ {
		if _, err := Install(o); err != nil {
			t.Fatalf("install #%d: %v", i+1, err)
		}
	}
	want := []string{
		".config/BraveSoftware/Brave-Browser/NativeMessagingHosts/com.gnosis.host.json",
		".config/chromium/NativeMessagingHosts/com.gnosis.host.json",
		".config/google-chrome/NativeMessagingHosts/com.gnosis.host.json",
		".local/share/gnosis/gnosis-host",
		".local/share/gnosis/install-record.json",
	}
	if d := cmp.Diff(want, listFiles(t, e.Home)); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	data, err := os.ReadFile(filepath.Join(e.Home, want[2]))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	wantM := Manifest{Name: HostName, Description: Description, Path: filepath.Join(e.Home, ".local/share/gnosis/gnosis-host"),
		Type: "stdio", AllowedOrigins: []string{Origin}}
	if d := cmp.Diff(wantM, m); d != "" {
		t.Errorf("manifest (-want +got):\n%s", d)
	}
	if st, err := os.Stat(wantM.Path); err != nil || st.Mode().Perm()&0o111 == 0 {
		t.Errorf("installed binary not executable: %v %v", st, err)
	}

	if _, err := Uninstall(Options{Env: e}); err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	if left, _ := os.ReadDir(e.Home); len(left) != 0 {
		t.Errorf("uninstall left %v in the home folder", left)
	}
}

func TestInstallDryRunChangesNothing(t *testing.T) {
	e := tempEnv(t)
	var out bytes.Buffer
	acts, err := Install(Options{Env: e, Browsers: "all", Source: fakeBinary(t), DryRun: true, Out: &out,
		Munim: "/opt/munim", LookPath: noPath})
	if err != nil {
		t.Fatal(err)
	}
	if got := listFiles(t, e.Home); len(got) != 0 {
		t.Errorf("dry run wrote %v", got)
	}
	if len(acts) < len(IDs("linux")) || !strings.Contains(out.String(), "would write") {
		t.Errorf("dry run output does not say what it would do:\n%s", out.String())
	}
}

func TestInstallWithNoBrowserFoundRegistersAll(t *testing.T) {
	e := tempEnv(t)
	var out bytes.Buffer
	if _, err := Install(Options{Env: e, Source: fakeBinary(t), Out: &out, LookPath: noPath}); err != nil {
		t.Fatal(err)
	}
	r, _ := readRecord(e.RecordFile())
	if len(r.Files) != len(IDs("linux")) {
		t.Errorf("registered %d manifests, want one per browser (%d):\n%s", len(r.Files), len(IDs("linux")), out.String())
	}
}

func TestInstallRegistersFoundBrowsersOnly(t *testing.T) {
	e := tempEnv(t)
	// Vivaldi has run for this user; Chromium is on PATH.
	if err := os.MkdirAll(filepath.Join(e.ConfigHome, "vivaldi"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(e.ConfigHome, "vivaldi", "Local State"), []byte("{}"), 0o644)
	lookPath := func(c string) (string, error) {
		if c == "chromium" {
			return "/usr/bin/chromium", nil
		}
		return "", os.ErrNotExist
	}
	acts, err := Install(Options{Env: e, Source: fakeBinary(t), LookPath: lookPath})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range acts {
		if a.Browser != "" {
			got = append(got, a.Browser)
		}
	}
	if d := cmp.Diff([]string{"chromium", "vivaldi"}, got); d != "" {
		t.Errorf("registered browsers (-want +got):\n%s", d)
	}
}

func TestInstallMunimKeepsOtherSettings(t *testing.T) {
	e := tempEnv(t)
	old := `{"providers":[{"name":"files","command":"/opt/files","prefix":"fs"},{"name":"munim","command":"/old/munim","prefix":"computer"}],` +
		`"policy":{"default":["computer.*"]},"log":{"level":"debug"}}`
	os.MkdirAll(filepath.Dir(e.ConfigFile), 0o755)
	os.WriteFile(e.ConfigFile, []byte(old), 0o600)
	if _, err := Install(Options{Env: e, Browsers: "chrome", Source: fakeBinary(t), Munim: `/opt/Munim/munim`,
		MunimArgs: []string{"--stdio", "-v"}, LookPath: noPath}); err != nil {
		t.Fatal(err)
	}
	var got, want any
	data, _ := os.ReadFile(e.ConfigFile)
	json.Unmarshal(data, &got)
	json.Unmarshal([]byte(`{"providers":[{"name":"files","command":"/opt/files","prefix":"fs"},`+
		`{"name":"munim","command":"/opt/Munim/munim","args":["--stdio","-v"],"prefix":"computer"}],`+
		`"policy":{"default":["computer.*"]},"log":{"level":"debug"}}`), &want)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("config (-want +got):\n%s", d)
	}
	// The config existed before: uninstall leaves it.
	if _, err := Uninstall(Options{Env: e}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(e.ConfigFile); err != nil {
		t.Errorf("uninstall removed a config install did not create: %v", err)
	}
}

func TestInstallRefusesBrokenConfig(t *testing.T) {
	e := tempEnv(t)
	os.MkdirAll(filepath.Dir(e.ConfigFile), 0o755)
	os.WriteFile(e.ConfigFile, []byte(`{"providers": oops`), 0o600)
	_, err := Install(Options{Env: e, Browsers: "chrome", Source: fakeBinary(t), Munim: "/opt/munim", LookPath: noPath})
	if err == nil || !strings.Contains(err.Error(), "not touching it") {
		t.Errorf("err = %v, want a refusal to touch the broken config", err)
	}
	data, _ := os.ReadFile(e.ConfigFile)
	if string(data) != `{"providers": oops` {
		t.Errorf("broken config was changed to %s", data)
	}
}

func TestUninstallWithoutRecordFindsScriptRegistration(t *testing.T) {
	e := tempEnv(t)
	if _, err := Install(Options{Env: e, Browsers: "chrome,edge", Source: fakeBinary(t), LookPath: noPath}); err != nil {
		t.Fatal(err)
	}
	os.Remove(e.RecordFile()) // as if a script had installed
	if _, err := Uninstall(Options{Env: e}); err != nil {
		t.Fatal(err)
	}
	if got := listFiles(t, e.Home); len(got) != 0 {
		t.Errorf("uninstall left %v", got)
	}
}

func TestInstallRejectsBadExtensionID(t *testing.T) {
	e := tempEnv(t)
	_, err := Install(Options{Env: e, Browsers: "chrome", Source: fakeBinary(t), ExtensionIDs: []string{"nope"}, LookPath: noPath})
	if err == nil {
		t.Fatal("bad extension id accepted")
	}
	if got := listFiles(t, e.Home); len(got) != 0 {
		t.Errorf("a failed install wrote %v", got)
	}
}

func TestInstallMakesMunimCommandAbsolute(t *testing.T) {
	e := tempEnv(t)
	t.Chdir(t.TempDir())
	for _, tt := range []struct{ given, want string }{
		{"sh", mustLook(t, "sh")},
		{"tools/munim", filepath.Join(mustGetwd(t), "tools/munim")},
		{"/opt/munim", "/opt/munim"},
		{"no-such-munim-command", "no-such-munim-command"},
	} {
		if _, err := Install(Options{Env: e, Browsers: "chrome", Source: fakeBinary(t), Munim: tt.given, LookPath: noPath}); err != nil {
			t.Fatal(err)
		}
		var cfg struct{ Providers []config.Provider }
		data, _ := os.ReadFile(e.ConfigFile)
		json.Unmarshal(data, &cfg)
		if len(cfg.Providers) != 1 || cfg.Providers[0].Command != tt.want {
			t.Errorf("--munim %s: providers %+v, want command %s", tt.given, cfg.Providers, tt.want)
		}
	}
}

func mustLook(t *testing.T, c string) string {
	p, err := exec.LookPath(c)
	if err != nil {
		t.Skip(err)
	}
	a, _ := filepath.Abs(p)
	return a
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func TestInstallMunimWritesAPolicyThatGrantsNothing(t *testing.T) {
	e := tempEnv(t)
	if _, err := Install(Options{Env: e, Browsers: "chrome", Source: fakeBinary(t), Munim: "/opt/Munim/munim", LookPath: noPath}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Policy map[string]any `json:"policy"`
	}
	data, _ := os.ReadFile(e.ConfigFile)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"default": []any{}, "origins": map[string]any{}}
	if d := cmp.Diff(want, got.Policy); d != "" {
		t.Errorf("policy written by install (-want +got):\n%s", d)
	}
}

// Firefox found through its profile gets a manifest with allowed_extensions
// in ~/.mozilla/native-messaging-hosts, next to Chrome's with allowed_origins;
// an extra add-on id goes to Firefox's manifest only.
func TestInstallFirefoxWritesItsOwnManifest(t *testing.T) {
	e := tempEnv(t)
	os.MkdirAll(filepath.Join(e.Home, ".mozilla", "firefox"), 0o755)
	os.WriteFile(filepath.Join(e.Home, ".mozilla", "firefox", "profiles.ini"), []byte("[General]\n"), 0o644)
	lookPath := func(c string) (string, error) {
		if c == "google-chrome" {
			return "/usr/bin/google-chrome", nil
		}
		return "", os.ErrNotExist
	}
	if _, err := Install(Options{Env: e, Source: fakeBinary(t), LookPath: lookPath, ExtensionIDs: []string{"dev@example.org"}}); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(e.Home, ".local/share/gnosis/gnosis-host")
	want := map[string]Manifest{
		".config/google-chrome/NativeMessagingHosts/com.gnosis.host.json": {Name: HostName, Description: Description, Path: bin,
			Type: "stdio", AllowedOrigins: []string{Origin}},
		".mozilla/native-messaging-hosts/com.gnosis.host.json": {Name: HostName, Description: Description, Path: bin,
			Type: "stdio", AllowedExtensions: []string{AddonID, "dev@example.org"}},
	}
	got := map[string]Manifest{}
	for rel := range want {
		data, err := os.ReadFile(filepath.Join(e.Home, rel))
		if err != nil {
			t.Fatal(err)
		}
		if got[rel], err = ParseManifest(data); err != nil {
			t.Fatal(err)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("manifests (-want +got):\n%s", d)
	}
	checks, err := Doctor(DoctorOptions{Env: e, Browsers: "firefox", LookPath: noPath})
	if err != nil {
		t.Fatal(err)
	}
	if Failed(checks) {
		t.Errorf("doctor fails a fresh Firefox install:\n%s", table(checks))
	}
	if _, err := Uninstall(Options{Env: e}); err != nil {
		t.Fatal(err)
	}
	if got := listFiles(t, e.Home); !cmp.Equal(got, []string{".mozilla/firefox/profiles.ini"}) {
		t.Errorf("uninstall left %v, want only Firefox's profile", got)
	}
}

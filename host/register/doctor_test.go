package register

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every misregistration gets a FAIL row that names the problem and, where the
// browser would show one, its error string.
func TestDoctorExplainsMisregistrations(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(t *testing.T, manifest, bin string)
		item   string
		says   []string
	}{
		{"missing manifest", func(t *testing.T, m, _ string) { os.Remove(m) },
			"registered", []string{"no manifest at", "Specified native messaging host not found", "gnosis-host install --browsers chrome"}},
		{"bad JSON", func(t *testing.T, m, _ string) { os.WriteFile(m, []byte(`{"name": "com.gnosis.host",`), 0o644) },
			"manifest", []string{"not valid JSON", "Specified native messaging host not found"}},
		{"wrong name", edit(`"com.gnosis.host"`, `"com.gnosis.hots"`),
			"manifest name", []string{`"com.gnosis.hots", want "com.gnosis.host"`}},
		{"relative path", func(t *testing.T, m, bin string) { edit(bin, "gnosis/gnosis-host")(t, m, bin) },
			"manifest path", []string{"is relative; it must be absolute"}},
		{"missing binary", func(t *testing.T, _, bin string) { os.Remove(bin) },
			"host binary", []string{"registered, but the program the manifest names is gone", `Google Chrome says "Specified native messaging host not found."`, "install"}},
		{"not executable", func(t *testing.T, _, bin string) { os.Chmod(bin, 0o644) },
			"host binary", []string{"not executable", "chmod +x"}},
		{"origin missing trailing slash", edit(Origin, strings.TrimSuffix(Origin, "/")),
			"manifest allowed_origins", []string{"lacks the trailing slash"}},
		{"bad extension id", edit(Origin, "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdz/"),
			"manifest allowed_origins", []string{"is not 32 letters a-p, so it lets no extension in"}},
		{"our origin missing", edit(Origin, "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"),
			"manifest allowed_origins", []string{"does not list the Gnosis extension", "Access to the specified native messaging host is forbidden"}},
		{"wrong type", edit(`"stdio"`, `"pipe"`),
			"manifest type", []string{`want "stdio"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tempEnv(t)
			if _, err := Install(Options{Env: e, Browsers: "chrome", Source: fakeBinary(t), LookPath: noPath}); err != nil {
				t.Fatal(err)
			}
			chrome, _ := Lookup("chrome")
			m, _ := e.ManifestPath(chrome, User)
			checks, err := Doctor(DoctorOptions{Env: e, Browsers: "chrome", LookPath: noPath})
			if err != nil {
				t.Fatal(err)
			}
			if Failed(checks) {
				t.Fatalf("doctor fails a fresh install:\n%s", table(checks))
			}
			tt.break_(t, m, e.InstalledBinary())
			checks, err = Doctor(DoctorOptions{Env: e, Browsers: "chrome", LookPath: noPath})
			if err != nil {
				t.Fatal(err)
			}
			if !Failed(checks) {
				t.Fatalf("doctor passes a broken registration:\n%s", table(checks))
			}
			row := rowSaying(checks, tt.item, tt.says[0])
			if row == nil {
				t.Fatalf("no row %q saying %q:\n%s", tt.item, tt.says[0], table(checks))
			}
			for _, s := range tt.says {
				if !strings.Contains(row.Detail, s) {
					t.Errorf("row %q does not say %q: %s", tt.item, s, row.Detail)
				}
			}
		})
	}
}

// Firefox's rows name Firefox's field and error, and the fix's extension page.
func TestDoctorExplainsFirefoxMisregistrations(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(t *testing.T, manifest, bin string)
		item   string
		says   []string
	}{
		{"missing manifest", func(t *testing.T, m, _ string) { os.Remove(m) },
			"registered", []string{".mozilla/native-messaging-hosts/com.gnosis.host.json", "No such native application com.gnosis.host",
				"gnosis-host install --browsers firefox"}},
		{"our add-on missing", edit(`"gnosis@gnosis.dev"`, `"other@example.org"`),
			"manifest allowed_extensions", []string{"does not list the Gnosis extension gnosis@gnosis.dev", "about:debugging"}},
		{"a chromium manifest", edit(`"allowed_extensions": [
    "gnosis@gnosis.dev"`, `"allowed_origins": [
    "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/"`),
			"manifest allowed_extensions", []string{"manifest for chromium browsers (allowed_origins), which firefox ignores"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tempEnv(t)
			if _, err := Install(Options{Env: e, Browsers: "firefox", Source: fakeBinary(t), LookPath: noPath}); err != nil {
				t.Fatal(err)
			}
			firefox, _ := Lookup("firefox")
			m, _ := e.ManifestPath(firefox, User)
			tt.break_(t, m, e.InstalledBinary())
			checks, err := Doctor(DoctorOptions{Env: e, Browsers: "firefox", LookPath: noPath})
			if err != nil {
				t.Fatal(err)
			}
			var row *Check
			for i, c := range checks {
				if c.Item == tt.item && c.Status == Fail {
					row = &checks[i]
					break
				}
			}
			if row == nil {
				t.Fatalf("no FAIL row %q:\n%s", tt.item, table(checks))
			}
			for _, s := range tt.says {
				if !strings.Contains(row.Detail, s) {
					t.Errorf("row %q does not say %q: %s", tt.item, s, row.Detail)
				}
			}
		})
	}
}

// edit replaces old by new in the manifest file.
func edit(old, new string) func(t *testing.T, m, bin string) {
	return func(t *testing.T, m, _ string) {
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), old) {
			t.Fatalf("manifest has no %q", old)
		}
		os.WriteFile(m, []byte(strings.Replace(string(data), old, new, 1)), 0o644)
	}
}

func table(checks []Check) string {
	var b strings.Builder
	PrintTable(&b, checks)
	return b.String()
}

func TestDoctorSkipsBrowsersNeitherInstalledNorRegistered(t *testing.T) {
	e := tempEnv(t)
	checks, err := Doctor(DoctorOptions{Env: e, LookPath: noPath})
	if err != nil {
		t.Fatal(err)
	}
	if Failed(checks) {
		t.Errorf("doctor fails on a machine without browsers:\n%s", table(checks))
	}
	// A browser that has run but is not registered fails.
	os.MkdirAll(filepath.Join(e.ConfigHome, "microsoft-edge"), 0o755)
	os.WriteFile(filepath.Join(e.ConfigHome, "microsoft-edge", "Local State"), nil, 0o644)
	checks, _ = Doctor(DoctorOptions{Env: e, LookPath: noPath})
	failed := false
	for _, c := range checks {
		if c.Browser == "edge" && c.Item == "registered" && c.Status == Fail {
			failed = strings.Contains(c.Detail, "run: gnosis-host install --browsers edge")
		}
	}
	if !failed {
		t.Errorf("doctor does not fail an installed but unregistered Edge:\n%s", table(checks))
	}
}

func TestDoctorWarnsAboutFlatpakAndSnap(t *testing.T) {
	e := tempEnv(t)
	os.MkdirAll(filepath.Join(e.Home, ".var", "app", "com.google.Chrome"), 0o755)
	os.MkdirAll(filepath.Join(e.Home, "snap", "chromium"), 0o755)
	checks, _ := Doctor(DoctorOptions{Env: e, LookPath: noPath})
	var warned []string
	for _, c := range checks {
		if c.Item == "sandbox" && c.Status == Warn {
			warned = append(warned, c.Browser)
		}
	}
	if strings.Join(warned, ",") != "chrome,chromium" {
		t.Errorf("sandbox warnings for %v, want chrome,chromium:\n%s", warned, table(checks))
	}
}

func TestDoctorChecksConfigAndProviderCommand(t *testing.T) {
	tests := []struct {
		name, config string
		status       Status
		says         string
	}{
		{"missing", "", Warn, "does not exist"},
		{"broken JSON", `{"providers": [`, Fail, "config"},
		{"provider command absent", `{"providers":[{"name":"munim","command":"/nonexistent/munim","prefix":"computer"}]}`, Fail, "/nonexistent/munim"},
		{"provider command on PATH", `{"providers":[{"name":"munim","command":"sh","prefix":"computer"}]}`, OK, "sh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tempEnv(t)
			if tt.config != "" {
				os.MkdirAll(filepath.Dir(e.ConfigFile), 0o755)
				os.WriteFile(e.ConfigFile, []byte(tt.config), 0o600)
			}
			checks, _ := Doctor(DoctorOptions{Env: e, LookPath: noPath})
			last := checks[len(checks)-1]
			if last.Status != tt.status || !strings.Contains(last.Detail, tt.says) {
				t.Errorf("last row %+v, want %s mentioning %q:\n%s", last, tt.status, tt.says, table(checks))
			}
		})
	}
}

// A policy key that is not an origin would never match its site: doctor
// fails the config and says how to write it.
func TestDoctorFailsAPolicyKeyThatIsNotAnOrigin(t *testing.T) {
	e := tempEnv(t)
	os.MkdirAll(filepath.Dir(e.ConfigFile), 0o755)
	os.WriteFile(e.ConfigFile, []byte(`{"providers":[{"name":"munim","command":"sh"}],"policy":{"origins":{"chat.example.com/":["*"]}}}`), 0o600)
	checks, _ := Doctor(DoctorOptions{Env: e, LookPath: noPath})
	for _, c := range checks {
		if c.Item == "config" && c.Status == Fail && strings.Contains(c.Detail, `"chat.example.com/" has no scheme://`) &&
			strings.Contains(c.Detail, "https://host") {
			return
		}
	}
	t.Errorf("no failing config row about the policy key:\n%s", table(checks))
}

// rowSaying is the first row about item that is not OK and says first.
func rowSaying(checks []Check, item, first string) *Check {
	for i, c := range checks {
		if c.Item == item && c.Status != OK && strings.Contains(c.Detail, first) {
			return &checks[i]
		}
	}
	return nil
}

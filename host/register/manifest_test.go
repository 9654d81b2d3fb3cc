package register

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The Go installer and the scripts write the same text: each family's
// template in manifests/ with the path filled in.
func TestManifestMatchesTemplate(t *testing.T) {
	for _, tt := range []struct {
		family   Family
		template string
	}{
		{Chromium, "../../manifests/com.gnosis.host.json"},
		{Firefox, "../../manifests/com.gnosis.host.firefox.json"},
	} {
		tmpl, err := os.ReadFile(tt.template)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct{ path, escaped string }{
			{"/home/ada/.local/share/gnosis/gnosis-host", "/home/ada/.local/share/gnosis/gnosis-host"},
			{`C:\Users\Ada Lovelace\AppData\Local\Gnosis\gnosis-host.exe`, `C:\\Users\\Ada Lovelace\\AppData\\Local\\Gnosis\\gnosis-host.exe`},
		} {
			m, err := NewManifest(tt.family, p.path)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(string(tmpl), "@HOST_PATH@", p.escaped, 1)
			if d := cmp.Diff(want, string(m.Encode())); d != "" {
				t.Errorf("%s manifest for %s differs from %s (-template +Go):\n%s", tt.family.ID, p.path, tt.template, d)
			}
		}
	}
}

func TestNewManifestExtraIDs(t *testing.T) {
	ids := []string{"abcdefghijklmnopabcdefghijklmnop", ExtensionID, "other@example.org", "abcdefghijklmnopabcdefghijklmnop",
		"{8d3c0a1e-1b2c-4d5e-8f90-a1b2c3d4e5f6}", AddonID}
	chromium, err := NewManifest(Chromium, "/x/gnosis-host", ids...)
	if err != nil {
		t.Fatal(err)
	}
	firefox, err := NewManifest(Firefox, "/x/gnosis-host", ids...)
	if err != nil {
		t.Fatal(err)
	}
	got := [][]string{chromium.AllowedOrigins, chromium.AllowedExtensions, firefox.AllowedOrigins, firefox.AllowedExtensions}
	want := [][]string{
		{Origin, "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"}, nil,
		nil, {AddonID, "other@example.org", "{8d3c0a1e-1b2c-4d5e-8f90-a1b2c3d4e5f6}"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("chromium origins, extensions; firefox origins, extensions (-want +got):\n%s", d)
	}
	for _, bad := range []string{"ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP", "abcdefghijklmnopqrstuvwxyzabcdef", "short",
		"chrome-extension://abcdefghijklmnopabcdefghijklmnop/", "moz-extension://gnosis@gnosis.dev/", "a b@c", "{not-a-uuid}"} {
		for _, f := range Families {
			if _, err := NewManifest(f, "/x", bad); err == nil {
				t.Errorf("%s: extension id %q accepted", f.ID, bad)
			}
		}
	}
}

func TestManifestCheck(t *testing.T) {
	good := func() Manifest { m, _ := NewManifest(Chromium, "/opt/gnosis-host"); return m }
	tests := []struct {
		name   string
		goos   string
		edit   func(*Manifest)
		fields []string
	}{
		{"well-formed", "linux", func(*Manifest) {}, nil},
		{"wrong name", "linux", func(m *Manifest) { m.Name = "com.gnosis.other" }, []string{"name"}},
		{"upper-case name", "linux", func(m *Manifest) { m.Name = "Com.Gnosis.Host" }, []string{"name"}},
		{"wrong type", "linux", func(m *Manifest) { m.Type = "socket" }, []string{"type"}},
		{"relative path", "linux", func(m *Manifest) { m.Path = "bin/gnosis-host" }, []string{"path"}},
		{"relative path allowed on windows", "windows", func(m *Manifest) { m.Path = "gnosis-host.exe" }, nil},
		{"empty path", "linux", func(m *Manifest) { m.Path = "" }, []string{"path"}},
		{"origin without trailing slash", "linux", func(m *Manifest) { m.AllowedOrigins = []string{Origin[:len(Origin)-1]} },
			[]string{"allowed_origins", "allowed_origins"}},
		{"bad id", "linux", func(m *Manifest) { m.AllowedOrigins = append(m.AllowedOrigins, "chrome-extension://xyz/") },
			[]string{"allowed_origins"}},
		{"wildcard", "linux", func(m *Manifest) { m.AllowedOrigins = append(m.AllowedOrigins, "chrome-extension://*/") },
			[]string{"allowed_origins"}},
		{"no origins", "linux", func(m *Manifest) { m.AllowedOrigins = nil }, []string{"allowed_origins"}},
		{"other extension only", "linux", func(m *Manifest) {
			m.AllowedOrigins = []string{"chrome-extension://abcdefghijklmnopabcdefghijklmnop/"}
		}, []string{"allowed_origins"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := good()
			tt.edit(&m)
			var got []string
			for _, p := range m.Check(tt.goos, Chromium) {
				got = append(got, p.Field)
			}
			if d := cmp.Diff(tt.fields, got); d != "" {
				t.Errorf("problem fields (-want +got):\n%s\n%v", d, m.Check(tt.goos, Chromium))
			}
		})
	}
}

// Firefox reads allowed_extensions: a Chromium manifest in its folder lets
// no add-on in, and our add-on id must be listed.
func TestFirefoxManifestCheck(t *testing.T) {
	firefox := func() Manifest { m, _ := NewManifest(Firefox, "/opt/gnosis-host"); return m }
	chromium, _ := NewManifest(Chromium, "/opt/gnosis-host")
	tests := []struct {
		name string
		m    Manifest
		edit func(*Manifest)
		want []string // each problem: field: start of message
	}{
		{"well-formed", firefox(), func(*Manifest) {}, nil},
		{"a chromium manifest", chromium, func(*Manifest) {},
			[]string{"allowed_extensions: missing: this is a manifest for chromium browsers"}},
		{"our add-on missing", firefox(), func(m *Manifest) { m.AllowedExtensions = []string{"other@example.org"} },
			[]string{`allowed_extensions: does not list the Gnosis extension gnosis@gnosis.dev`}},
		{"malformed add-on id", firefox(), func(m *Manifest) { m.AllowedExtensions = append(m.AllowedExtensions, "moz-extension://x/") },
			[]string{`allowed_extensions: "moz-extension://x/": want an add-on id`}},
		{"empty", firefox(), func(m *Manifest) { m.AllowedExtensions = nil },
			[]string{"allowed_extensions: empty: no extension may connect"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.m
			tt.edit(&m)
			var got []string
			for i, p := range m.Check("linux", Firefox) {
				if i < len(tt.want) && strings.HasPrefix(p.String(), tt.want[i]) {
					got = append(got, tt.want[i])
					continue
				}
				got = append(got, p.String())
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}
}

func TestOriginProblemExplains(t *testing.T) {
	tests := map[string]string{
		Origin[:len(Origin)-1]:    "lacks the trailing slash",
		"chrome-extension://abc/": "is not 32 letters a-p",
		"https://example.com/":    "want chrome-extension://",
	}
	for o, want := range tests {
		if got, _ := originProblem(o); !strings.Contains(got, want) {
			t.Errorf("originProblem(%q) = %q, want it to contain %q", o, got, want)
		}
	}
}

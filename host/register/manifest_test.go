package register

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The Go installer and the scripts write the same text: the template in
// manifests/ with the path filled in.
func TestManifestMatchesTemplate(t *testing.T) {
	tmpl, err := os.ReadFile("../../manifests/com.gnosis.host.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ path, escaped string }{
		{"/home/ada/.local/share/gnosis/gnosis-host", "/home/ada/.local/share/gnosis/gnosis-host"},
		{`C:\Users\Ada Lovelace\AppData\Local\Gnosis\gnosis-host.exe`, `C:\\Users\\Ada Lovelace\\AppData\\Local\\Gnosis\\gnosis-host.exe`},
	} {
		m, err := NewManifest(p.path)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(string(tmpl), "@HOST_PATH@", p.escaped, 1)
		if d := cmp.Diff(want, string(m.Encode())); d != "" {
			t.Errorf("manifest for %s differs from the template (-template +Go):\n%s", p.path, d)
		}
	}
}

func TestNewManifestExtraIDs(t *testing.T) {
	m, err := NewManifest("/x/gnosis-host", "abcdefghijklmnopabcdefghijklmnop", ExtensionID, "abcdefghijklmnopabcdefghijklmnop")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{Origin, "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"}
	if d := cmp.Diff(want, m.AllowedOrigins); d != "" {
		t.Errorf("origins (-want +got):\n%s", d)
	}
	for _, bad := range []string{"ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP", "abcdefghijklmnopqrstuvwxyzabcdef", "short", "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"} {
		if _, err := NewManifest("/x", bad); err == nil {
			t.Errorf("extension id %q accepted", bad)
		}
	}
}

func TestManifestCheck(t *testing.T) {
	good := func() Manifest { m, _ := NewManifest("/opt/gnosis-host"); return m }
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
			for _, p := range m.Check(tt.goos) {
				got = append(got, p.Field)
			}
			if d := cmp.Diff(tt.fields, got); d != "" {
				t.Errorf("problem fields (-want +got):\n%s\n%v", d, m.Check(tt.goos))
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
		if got := originProblem(o); !strings.Contains(got, want) {
			t.Errorf("originProblem(%q) = %q, want it to contain %q", o, got, want)
		}
	}
}

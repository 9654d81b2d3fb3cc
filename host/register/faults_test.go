package register

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// README's table of what the extension shows is the Faults table, rendered.
func TestReadmeShowsTheFaultTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), FaultTable()) {
		t.Errorf("README.md lacks the fault table; paste this under \"When the extension cannot connect\":\n\n%s", FaultTable())
	}
}

// Each browser gets its own message for each fault: the per-system one
// where it has one, its family's otherwise.
func TestFaultMessagesPerBrowserAndSystem(t *testing.T) {
	chrome, _ := Lookup("chrome")
	firefox, _ := Lookup("firefox")
	tests := []struct {
		fault   Fault
		browser Browser
		goos    string
		want    string
	}{
		{FaultBinaryGone, chrome, "linux", `Google Chrome says "Specified native messaging host not found."`},
		{FaultBinaryGone, firefox, "linux", `Mozilla Firefox says "An unexpected error occurred"`},
		{FaultNotAllowed, firefox, "windows", `Mozilla Firefox says "No such native application com.gnosis.host"`},
		{FaultCannotStart, chrome, "linux", `Google Chrome says "Native host has exited." or "Error when communicating with the native messaging host."`},
		{FaultCannotStart, chrome, "windows", `Google Chrome says "Failed to start native messaging host."`},
		{FaultExited, firefox, "darwin", "Mozilla Firefox closes the connection without a message"},
	}
	for _, tt := range tests {
		if got := says(tt.browser, tt.goos, tt.fault); got != tt.want {
			t.Errorf("%s, %s on %s:\n got %s\nwant %s", tt.fault.ID, tt.browser.ID, tt.goos, got, tt.want)
		}
	}
	for _, f := range Faults {
		for _, fam := range Families {
			if _, ok := f.Says[fam.ID]; !ok {
				t.Errorf("fault %s says nothing of %s", f.ID, fam.ID)
			}
		}
	}
}

// What a browser does with a malformed manifest list decides the fault: a
// malformed entry makes Chromium reject the manifest, a well-formed list
// without us is "forbidden", and an entry with a bad id is ignored.
func TestManifestProblemsNameTheirFault(t *testing.T) {
	tests := []struct {
		name    string
		origins []string
		want    []string // fault id, or "harmless"
	}{
		{"no trailing slash", []string{strings.TrimSuffix(Origin, "/")}, []string{FaultBadManifest.ID, FaultNotAllowed.ID}},
		{"wildcard beside ours", []string{Origin, "chrome-extension://*/"}, []string{FaultBadManifest.ID}},
		{"empty", []string{}, []string{FaultNotAllowed.ID}},
		{"another extension only", []string{"chrome-extension://abcdefghijklmnopabcdefghijklmnop/"}, []string{FaultNotAllowed.ID}},
		{"a bad id beside ours", []string{Origin, "chrome-extension://xyz/"}, []string{"harmless"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := NewManifest(Chromium, "/opt/gnosis-host")
			m.AllowedOrigins = tt.origins
			var got []string
			for _, p := range m.Check("linux", Chromium) {
				if p.Harmless {
					got = append(got, "harmless")
				} else {
					got = append(got, p.Fault.ID)
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("faults (-want +got):\n%s", d)
			}
		})
	}
}

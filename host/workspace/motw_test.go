package workspace

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestZoneIdentifierMarksDownloadsAsFromTheInternet(t *testing.T) {
	const head = "[ZoneTransfer]\r\nZoneId=3\r\n"
	long := "https://files.example.com/" + strings.Repeat("a", maxZoneURL)
	tests := []struct {
		behaviour string
		src       Source
		want      string
	}{
		{"page and download URL", Source{URL: "https://cdn.example.com/paper.pdf?v=2", Referrer: "https://example.com/papers"},
			head + "ReferrerUrl=https://example.com/papers\r\nHostUrl=https://cdn.example.com/paper.pdf?v=2\r\n"},
		{"no URLs known", Source{}, head},
		{"download URL only", Source{URL: "http://example.com/a.zip"}, head + "HostUrl=http://example.com/a.zip\r\n"},
		{"page URL only", Source{Referrer: "https://example.com/"}, head + "ReferrerUrl=https://example.com/\r\n"},
		{"credentials are stripped", Source{URL: "https://user:secret@example.com/f.zip", Referrer: "https://me@example.com/p"},
			head + "ReferrerUrl=https://example.com/p\r\nHostUrl=https://example.com/f.zip\r\n"},
		{"fragments are dropped", Source{URL: "https://example.com/f.zip#token=abc", Referrer: "https://example.com/p#access_token=x"},
			head + "ReferrerUrl=https://example.com/p\r\nHostUrl=https://example.com/f.zip\r\n"},
		{"blob URL is not copied", Source{URL: "blob:https://example.com/0b3e5c1a-7d2f-4c1e-9a8b-1f2e3d4c5b6a", Referrer: "https://example.com/app"},
			head + "ReferrerUrl=https://example.com/app\r\nHostUrl=about:internet\r\n"},
		{"data URL body is not copied", Source{URL: "data:application/x-msdownload;base64,TVqQAAMAAAAEAAAA"},
			head + "HostUrl=about:internet\r\n"},
		{"other schemes are not copied", Source{URL: "javascript:alert(1)", Referrer: "blob:https://example.com/x"},
			head + "HostUrl=about:internet\r\n"},
		{"CR LF in the download URL cannot add a line", Source{URL: "https://example.com/a\r\nZoneId=0"},
			head + "HostUrl=about:internet\r\n"},
		{"CR LF in the page URL cannot add a line", Source{URL: "https://example.com/a", Referrer: "https://example.com/\nZoneId=0"},
			head + "HostUrl=https://example.com/a\r\n"},
		{"encoded CR LF stays encoded", Source{URL: "https://example.com/a%0D%0AZoneId=0"},
			head + "HostUrl=https://example.com/a%0D%0AZoneId=0\r\n"},
		{"spaces and non-ASCII are percent-encoded", Source{URL: "https://example.com/résumé.pdf?q=a b\u2028c"},
			head + "HostUrl=https://example.com/r%C3%A9sum%C3%A9.pdf?q=a%20b%E2%80%A8c\r\n"},
		{"upper-case scheme", Source{URL: "HTTPS://example.com/x"}, head + "HostUrl=https://example.com/x\r\n"},
		{"relative URL", Source{URL: "/download/x.zip", Referrer: "page.html"}, head + "HostUrl=about:internet\r\n"},
		{"an over-long URL is cut to its origin", Source{URL: long}, head + "HostUrl=https://files.example.com/\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.behaviour, func(t *testing.T) {
			if d := cmp.Diff(tt.want, string(zoneIdentifier(tt.src))); d != "" {
				t.Errorf("zoneIdentifier(%+v) (-want +got):\n%s", tt.src, d)
			}
		})
	}
}

// workspace.create takes the download's URL and page as optional params and
// keeps them with the download for its mark.
func TestCreateTakesTheDownloadsSource(t *testing.T) {
	w, _, _ := fixture(t)
	c, err := call(t, w, "workspace.create",
		`{"name":"x.zip","url":"https://example.com/x.zip","referrer":"https://example.com/page"}`)
	must(t, err)
	w.mu.Lock()
	got := w.pending[c["handle"].(string)].source
	w.mu.Unlock()
	if d := cmp.Diff(Source{URL: "https://example.com/x.zip", Referrer: "https://example.com/page"}, got); d != "" {
		t.Errorf("source (-want +got):\n%s", d)
	}
	if _, err := call(t, w, "workspace.commit", `{"handle":"`+c["handle"].(string)+`"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, w, "workspace.create", `{"name":"y.zip","url":7}`); codeOf(err) != "INVALID_REQUEST" {
		t.Errorf("a URL that is not a string: err %v, want INVALID_REQUEST", err)
	}
}

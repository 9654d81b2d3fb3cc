package workspace

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// hiddenRunes are the bidi controls and zero-width characters no accepted
// download name may contain, listed here independently of names.go.
const hiddenRunes = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u200b\u200c\u200d\u2060\ufeff"

// deviceNames are the Windows device names, listed independently of names.go.
var deviceNames = func() map[string]bool {
	m := map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true}
	for _, d := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³"} {
		m["COM"+d], m["LPT"+d] = true, true
	}
	return m
}()

// FuzzNames checks the invariants the security of the workspace rests on,
// whatever bytes a page or model sends.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"a.txt", "../x", "a/../../b", "/etc/passwd", `a\b`, "C:x", "CON.txt", ".", "a//b", "\x00",
		"invoice\u202efdp.exe", " a", "a ", ".env", "com\u00b9.tar.gz", "Lpt3 .x", "a\u200bb", "\ufeffx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p, bad := cleanRelative(s); bad == "" {
			for _, seg := range strings.Split(p, "/") {
				if seg == ".." || seg == "" || seg == "." {
					t.Fatalf("cleanRelative accepted %q", s)
				}
			}
			if strings.HasPrefix(p, "/") || strings.Contains(p, `\`) || hasDrive(p) {
				t.Fatalf("cleanRelative accepted %q", s)
			}
		}
		if checkFileName(s) != "" {
			return
		}
		switch {
		case strings.ContainsAny(s, `/\:`) || s == ".." || s == "." || s == "":
			t.Fatalf("checkFileName accepted a path-like %q", s)
		case !utf8.ValidString(s) || strings.ContainsAny(s, hiddenRunes):
			t.Fatalf("checkFileName accepted %q with invisible characters", s)
		case strings.Trim(s, ". ") != s:
			t.Fatalf("checkFileName accepted %q with a leading or trailing dot or space", s)
		}
		base, _, _ := strings.Cut(strings.ToUpper(s), ".")
		if deviceNames[strings.TrimRight(base, " ")] {
			t.Fatalf("checkFileName accepted the device name %q", s)
		}
	})
}

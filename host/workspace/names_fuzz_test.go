package workspace

import (
	"strings"
	"testing"
)

// FuzzNames checks the invariants the security of the workspace rests on,
// whatever bytes a page or model sends.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"a.txt", "../x", "a/../../b", "/etc/passwd", `a\b`, "C:x", "CON.txt", ".", "a//b", "\x00"} {
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
		if checkFileName(s) == "" && (strings.ContainsAny(s, `/\:`) || s == ".." || s == "." || s == "") {
			t.Fatalf("checkFileName accepted %q", s)
		}
	})
}

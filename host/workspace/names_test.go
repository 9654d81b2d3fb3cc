package workspace

import (
	"testing"
)

func TestFileNamesThatReadDifferentlyThanTheyAreAreRefused(t *testing.T) {
	const (
		invisibleChar = "file name may not contain invisible or text-direction characters"
		leading       = "file name may not start with a dot or a space"
		trailing      = "file name may not end with a dot or a space"
		device        = "file name is a reserved device name"
	)
	tests := []struct {
		behaviour, name, want string
	}{
		{"right-to-left override hides an executable", "invoice\u202efdp.exe", invisibleChar},
		{"left-to-right embedding", "a\u202ab.txt", invisibleChar},
		{"right-to-left embedding", "a\u202bb.txt", invisibleChar},
		{"pop directional formatting", "a\u202cb.txt", invisibleChar},
		{"left-to-right override", "a\u202db.txt", invisibleChar},
		{"left-to-right isolate", "a\u2066b.txt", invisibleChar},
		{"right-to-left isolate", "a\u2067b.txt", invisibleChar},
		{"first strong isolate", "a\u2068b.txt", invisibleChar},
		{"pop directional isolate", "a\u2069b.txt", invisibleChar},
		{"left-to-right mark", "a\u200eb.txt", invisibleChar},
		{"right-to-left mark", "a\u200fb.txt", invisibleChar},
		{"arabic letter mark", "a\u061cb.txt", invisibleChar},
		{"zero-width space", "pay\u200bpal.pdf", invisibleChar},
		{"zero-width non-joiner", "a\u200cb.txt", invisibleChar},
		{"zero-width joiner", "a\u200db.txt", invisibleChar},
		{"word joiner", "a\u2060b.txt", invisibleChar},
		{"byte order mark at the start", "\ufeffreport.pdf", invisibleChar},
		{"leading space", " report.pdf", leading},
		{"leading dot hides the file", ".bashrc", leading},
		{"leading dots", "...pdf", leading},
		{"trailing space", "report.pdf ", trailing},
		{"trailing dot", "report.pdf.", trailing},
		{"console", "CON", device},
		{"console in lower case", "con", device},
		{"null device with an extension", "NUL.txt", device},
		{"port with two extensions", "com1.tar.gz", device},
		{"port with a space before the extension", "COM1 .txt", device},
		{"port zero", "LPT0", device},
		{"port with superscript one", "COM\u00b9", device},
		{"port with superscript two", "LPT\u00b2", device},
		{"port with superscript three and an extension", "lpt\u00b3.log", device},
		{"console input", "CONIN$", device},
		{"console output with an extension", "conout$.txt", device},
		{"auxiliary device", "Aux.c", device},
		{"printer", "prn.pdf", device},
		{"ordinary name", "report.pdf", ""},
		{"dots inside", "x..y.tar.gz", ""},
		{"right-to-left text without controls", "\u05d3\u05d5\u05d7.pdf", ""},
		{"superscript four is no port", "COM\u2074.txt", ""},
		{"two-digit port is no device", "LPT10", ""},
		{"device name inside a longer name", "CONSOLE.txt", ""},
		{"console input without the dollar", "CONIN.txt", ""},
		{"inner spaces", "name with spaces.txt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.behaviour, func(t *testing.T) {
			if got := checkFileName(tt.name); got != tt.want {
				t.Errorf("checkFileName(%q) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

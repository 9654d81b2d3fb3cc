package shellquote

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestArgQuotesOnlyWhatTheShellWouldRead(t *testing.T) {
	tests := []struct {
		goos, in, want string
	}{
		{"linux", "/usr/bin/munim", "/usr/bin/munim"},
		{"linux", "", "''"},
		{"linux", "/opt/my tools/munim", "'/opt/my tools/munim'"},
		{"linux", "it's", `'it'\''s'`},
		{"darwin", "$HOME/x", "'$HOME/x'"},
		{"linux", "a;b", "'a;b'"},
		{"windows", `C:\tools\munim.exe`, `C:\tools\munim.exe`},
		{"windows", `C:\Program Files\munim.exe`, `"C:\Program Files\munim.exe"`},
		{"windows", "", `""`},
		{"windows", "50%", `"50%"`},
	}
	for _, tt := range tests {
		if got := Arg(tt.goos, tt.in); got != tt.want {
			t.Errorf("Arg(%q, %q) = %s, want %s", tt.goos, tt.in, got, tt.want)
		}
	}
}

func TestLineIsTheCommandThenEachArgument(t *testing.T) {
	got := Line("linux", "/opt/my tools/srv", []string{"--stdio", "a b", ""})
	if diff := cmp.Diff("'/opt/my tools/srv' --stdio 'a b' ''", got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := Line("windows", `C:\srv.exe`, nil); got != `C:\srv.exe` {
		t.Errorf("no arguments: %s", got)
	}
}

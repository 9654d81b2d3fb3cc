package keyprefix

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSkipsCommentsAndBlankLines(t *testing.T) {
	got := parse("# a comment\n\nsk-\n  ghp_  # GitHub\r\nSG.\n")
	if diff := cmp.Diff([]string{"sk-", "ghp_", "SG."}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAllIsReadOnceEachWithoutSpaces(t *testing.T) {
	if len(All) < 40 {
		t.Fatalf("%d prefixes: prefixes.txt was not read right", len(All))
	}
	seen := map[string]bool{}
	for _, p := range All {
		if seen[p] {
			t.Errorf("%q listed twice", p)
		}
		seen[p] = true
		if len(p) < 3 || strings.ContainsAny(p, " \t\r") {
			t.Errorf("%q cannot mark a key (too short, or with a space)", p)
		}
	}
	for _, want := range []string{"sk-", "ghp_", "github_pat_", "xoxb-", "AKIA"} {
		if !seen[want] {
			t.Errorf("%q missing", want)
		}
	}
}

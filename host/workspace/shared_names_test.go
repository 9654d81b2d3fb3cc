package workspace

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The extension's file_transfer.js reads the same table: a name the
// extension accepts is one the host accepts, and the other way round.
func TestNameRulesMatchTheSharedTable(t *testing.T) {
	raw, err := os.ReadFile("testdata/names.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		FileName, Path struct{ Accept, Refuse []string }
	}
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	for _, n := range table.FileName.Accept {
		if bad := checkFileName(n); bad != "" {
			t.Errorf("checkFileName(%q) = %q, want accepted", n, bad)
		}
	}
	for _, n := range table.FileName.Refuse {
		if checkFileName(n) == "" {
			t.Errorf("checkFileName(%q) accepted, want refused", n)
		}
	}
	for _, p := range table.Path.Accept {
		if _, bad := cleanRelative(p); bad != "" {
			t.Errorf("cleanRelative(%q) = %q, want accepted", p, bad)
		}
	}
	for _, p := range table.Path.Refuse {
		if _, bad := cleanRelative(p); bad == "" {
			t.Errorf("cleanRelative(%q) accepted, want refused", p)
		}
	}
	if len(table.FileName.Refuse) < 10 || !strings.Contains(string(raw), "gnosis-download") {
		t.Fatal("shared table looks truncated")
	}
}

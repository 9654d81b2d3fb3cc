package redact

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// freeTextTable is testdata/freetext_table.json: the cases of the rules
// docs/security.md states ("The rules"), each tagged with its rule, in a
// form the extension's tests can read too.
type freeTextTable struct {
	Known []string `json:"known"`
	Text  []struct {
		Rule, Name, In, Want string
	} `json:"text"`
	Stream []struct {
		Provider, In, Want string
	} `json:"stream"`
}

func readFreeTextTable(t *testing.T) freeTextTable {
	t.Helper()
	raw, err := os.ReadFile("testdata/freetext_table.json")
	if err != nil {
		t.Fatal(err)
	}
	var table freeTextTable
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatalf("testdata/freetext_table.json: %v", err)
	}
	if len(table.Known) == 0 || len(table.Text) < 20 || len(table.Stream) < 10 {
		t.Fatal("testdata/freetext_table.json was not read right")
	}
	return table
}

// knownSet is a Set that knows the table's values, as a provider's env
// would give them.
func knownSet(table freeTextTable) *Set {
	var s Set
	for _, v := range table.Known {
		s.AddEnv(map[string]string{"API_KEY": v})
	}
	return &s
}

// Each text case, masked by a set that knows the table's values.
func TestFreeTextRules(t *testing.T) {
	table := readFreeTextTable(t)
	s := knownSet(table)
	for _, tt := range table.Text {
		t.Run(tt.Rule+" "+tt.Name, func(t *testing.T) {
			if d := cmp.Diff(tt.Want, s.Redact(tt.In)); d != "" {
				t.Errorf("Redact(%q) (-want +got):\n%s", tt.In, d)
			}
		})
	}
}

// A provider's stderr arrives as one log line per line it wrote: what a
// line break cuts (a known value, "password:" and its value, a private
// key's body) is masked across those log lines, provider by provider, and
// each line stays JSON.
func TestFreeTextRulesAcrossStderrLines(t *testing.T) {
	table := readFreeTextTable(t)
	var out bytes.Buffer
	w := Writer(&out, knownSet(table))
	var want []string
	for _, st := range table.Stream {
		w.Write(stderrLine(st.Provider, st.In))
		want = append(want, st.Provider+": "+st.Want)
	}
	var got []string
	for i, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var m map[string]string
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d is no longer JSON: %v\n%s", i, err, l)
		}
		got = append(got, m["provider"]+": "+m["message"])
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

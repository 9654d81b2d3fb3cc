package runtime

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// suiteDir holds the groups of the official JSON Schema Test Suite the
// host is held to (ORIGIN.md there says which and from which commit).
const suiteDir = "testdata/json-schema-test-suite"

// suiteCase names one case: file (relative to tests/), group and test
// descriptions.
type suiteCase struct{ file, group, test string }

func (c suiteCase) String() string { return c.file + " | " + c.group + " | " + c.test }

// skipEntry is one line of skip.txt: a case, or every case of a group
// (test "*"), the host gets wrong on purpose or does not support, and why.
type skipEntry struct {
	suiteCase
	reason string
	seen   bool // it matched a case
	used   bool // it matched a case the host gets wrong
}

func (s *skipEntry) matches(c suiteCase) bool {
	return s.file == c.file && s.group == c.group && (s.test == "*" || s.test == c.test)
}

// readSkips parses skip.txt: "reason: ..." lines, each followed by the
// entries it explains, "file | group | test"; "#" starts a comment.
func readSkips(t *testing.T) []*skipEntry {
	t.Helper()
	f, err := os.Open(filepath.Join(suiteDir, "skip.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*skipEntry
	reason := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "reason:"):
			reason = strings.TrimSpace(strings.TrimPrefix(line, "reason:"))
		default:
			parts := strings.Split(line, " | ")
			if len(parts) != 3 || reason == "" {
				t.Fatalf("skip.txt:%d: want \"file | group | test\" after a reason: line, got %q", n, line)
			}
			out = append(out, &skipEntry{suiteCase: suiteCase{parts[0], parts[1], parts[2]}, reason: reason})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestJSONSchemaTestSuite runs every case of the copied groups through the
// compile and validate the runtime uses for a tool's schemas. A case the
// host gets wrong fails the test unless skip.txt lists it with a reason; an
// entry of skip.txt that matches no wrong case fails it too, so the list
// stays true. It logs one line: how many cases pass.
func TestJSONSchemaTestSuite(t *testing.T) {
	skips := readSkips(t)
	var files []string
	root := filepath.Join(suiteDir, "tests")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no suite files under %s: %v", root, err)
	}
	sort.Strings(files)
	total, passed, skipped := 0, 0, 0
	for _, path := range files {
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var groups []struct {
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
			Tests       []struct {
				Description string          `json:"description"`
				Data        json.RawMessage `json:"data"`
				Valid       bool            `json:"valid"`
			} `json:"tests"`
		}
		if err := json.Unmarshal(b, &groups); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for _, g := range groups {
			// A fresh validator per group, as each tool's schema is its own.
			s, compileErr := NewQRIValidator().Compile(g.Schema)
			for _, tc := range g.Tests {
				total++
				c := suiteCase{rel, g.Description, tc.Description}
				got, why := suiteOutcome(s, compileErr, tc.Data)
				var skip *skipEntry
				for _, e := range skips {
					if e.matches(c) {
						e.seen = true
						skip = e
						break
					}
				}
				switch {
				case got == tc.Valid && skip != nil && skip.test != "*":
					t.Errorf("%s: passes, but skip.txt lists it: remove the entry", c)
				case got == tc.Valid:
					passed++
				case skip != nil:
					skip.used = true
					skipped++
				default:
					t.Errorf("%s: valid = %v, want %v (%s)", c, got, tc.Valid, why)
				}
			}
		}
	}
	for _, e := range skips {
		switch {
		case !e.seen:
			t.Errorf("skip.txt: %s matches no case", e.suiteCase)
		case !e.used && e.test == "*":
			t.Errorf("skip.txt: %s matches no failing case: remove the entry", e.suiteCase)
		}
	}
	t.Logf("JSON Schema Test Suite: %d of %d cases pass, %d skipped as skip.txt explains, %d wrong", passed, total, skipped, total-passed-skipped)
}

// suiteOutcome is whether data is valid against the compiled schema as the
// host decides it (a schema that cannot be used refuses everything), and
// why not.
func suiteOutcome(s Schema, compileErr error, data json.RawMessage) (bool, string) {
	if compileErr != nil {
		return false, "compile: " + compileErr.Error()
	}
	vs, err := s.Validate(data)
	if err != nil {
		return false, "validate: " + err.Error()
	}
	if len(vs) > 0 {
		return false, fmt.Sprint(vs)
	}
	return true, "no violation"
}

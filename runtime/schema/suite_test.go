package schema

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

// suiteDir holds the JSON Schema Test Suite: tests/draft2020-12 and
// tests/draft7 whole (optional/ included) and remotes/, which the suite's
// "http://localhost:1234/..." references name. ORIGIN.md says from where.
const suiteDir = "testdata/json-schema-test-suite"

// suiteDrafts are the suite's folders and the dialect each assumes of a
// schema without "$schema".
var suiteDrafts = []struct{ dir, draft string }{{"draft2020-12", "2020-12"}, {"draft7", "draft-07"}}

// suiteLoader serves the suite's remotes from disk, as a test runner must:
// the validator itself never fetches.
func suiteLoader(uri string) ([]byte, bool) {
	path, ok := strings.CutPrefix(uri, "http://localhost:1234/")
	if !ok || strings.Contains(path, "..") {
		return nil, false
	}
	b, err := os.ReadFile(filepath.Join(suiteDir, "remotes", filepath.FromSlash(path)))
	return b, err == nil
}

// suiteCase names one case: file (relative to tests/), group and test
// descriptions.
type suiteCase struct{ file, group, test string }

func (c suiteCase) String() string { return c.file + " | " + c.group + " | " + c.test }

// skipEntry is one line of skip.txt: a case, or every case of a group
// (test "*"), the host decides otherwise on purpose, and why.
type skipEntry struct {
	suiteCase
	reason string
	used   bool
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

// suiteGroup is one group of a suite file.
type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// formatOf is the format an optional/format/<name>.json file tests, "" for
// another file.
func formatOf(file string) string {
	dir, name := filepath.Split(file)
	if !strings.HasSuffix(filepath.ToSlash(dir), "/optional/format/") {
		return ""
	}
	if name == "ecmascript-regex.json" {
		return "regex"
	}
	return strings.TrimSuffix(name, ".json")
}

// TestJSONSchemaTestSuite runs every case of the suite's draft2020-12 and
// draft7 folders, optional/ included, through the compile and validate
// the host uses. Two kinds of case are decided otherwise by design, each
// counted as skipped with its reason: a format the host does not assert
// (an annotation: an invalid value passes), and in 2020-12's format.json a
// format the host asserts (there an annotation by default). Any other
// case the host gets wrong fails the test unless skip.txt lists it with a
// reason; an entry of skip.txt that matches no wrong case fails it too,
// so the list stays true. It logs the table: pass, skip and wrong per draft.
func TestJSONSchemaTestSuite(t *testing.T) {
	skips := readSkips(t)
	var table []string
	for _, sd := range suiteDrafts {
		root := filepath.Join(suiteDir, "tests", sd.dir)
		var files []string
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
		total, passed, skipped, wrong := 0, 0, map[string]int{}, 0
		for _, path := range files {
			rel, _ := filepath.Rel(filepath.Join(suiteDir, "tests"), path)
			rel = filepath.ToSlash(rel)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var groups []suiteGroup
			if err := json.Unmarshal(b, &groups); err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			for _, g := range groups {
				s, compileErr := NewCompiler(WithDefaultDraft(sd.draft), WithLoader(suiteLoader)).Compile(g.Schema)
				for _, tc := range g.Tests {
					total++
					c := suiteCase{rel, g.Description, tc.Description}
					got, why := suiteOutcome(s, compileErr, tc.Data)
					var skip *skipEntry
					for _, e := range skips {
						if e.matches(c) {
							skip = e
							break
						}
					}
					f := formatOf(rel)
					_, asserted := formatChecks[f]
					switch {
					case got == tc.Valid && skip != nil && skip.test != "*":
						t.Errorf("%s: passes, but skip.txt lists it: remove the entry", c)
					case got == tc.Valid:
						passed++
					case f != "" && !asserted && got && !tc.Valid:
						skipped["format "+f+" is not asserted"]++
					case strings.HasSuffix(rel, "/format.json") && sd.dir == "draft2020-12" && !got && tc.Valid:
						skipped["2020-12 format.json: the host asserts the formats it checks exactly"]++
					case skip != nil:
						skip.used = true
						skipped[skip.reason[:min(60, len(skip.reason))]+"…"]++
					default:
						wrong++
						t.Errorf("%s: valid = %v, want %v (%s)", c, got, tc.Valid, why)
					}
				}
			}
		}
		n := 0
		var why []string
		for r, k := range skipped {
			n += k
			why = append(why, fmt.Sprintf("    %4d  %s", k, r))
		}
		sort.Strings(why)
		table = append(table, fmt.Sprintf("%-13s %5d cases  %5d pass  %4d skip  %3d wrong", sd.dir, total, passed, n, wrong))
		table = append(table, why...)
	}
	for _, e := range skips {
		if !e.used && e.test == "*" {
			t.Errorf("skip.txt: %s matches no failing case: remove the entry", e.suiteCase)
		}
	}
	t.Logf("JSON Schema Test Suite\n%s", strings.Join(table, "\n"))
}

// suiteOutcome is whether data is valid against the compiled schema as the
// host decides it (a schema that cannot be used refuses everything), and
// why not.
func suiteOutcome(s *Schema, compileErr error, data json.RawMessage) (bool, string) {
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

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

// suiteDrafts are the suite's folders and the "$schema" a root schema
// object of the folder gets when it has none: a draft-07 tool schema
// carries its "$schema" (zod-to-json-schema writes it), while the host
// reads a schema without one as 2020-12, so the 2019-09 and 2020-12
// folders' schemas (which carry theirs) are taken as they are.
var suiteDrafts = []struct{ dir, schema string }{
	{"draft2020-12", ""},
	{"draft2019-09", ""},
	{"draft7", "http://json-schema.org/draft-07/schema#"},
}

// suiteLoader serves the suite's remotes from disk, as a test runner does
// to tell which cases depend on them: the host itself never fetches.
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

// readRemoteCases reads remotes.txt: the cases that depend on a document
// the host does not fetch, one "file | group | test" a line.
func readRemoteCases(t *testing.T) map[suiteCase]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(suiteDir, "remotes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[suiteCase]bool{}
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, " | ")
		if len(parts) != 3 {
			t.Fatalf("remotes.txt:%d: want \"file | group | test\", got %q", n+1, line)
		}
		out[suiteCase{parts[0], parts[1], parts[2]}] = true
	}
	return out
}

// withSchema returns a root schema object with "$schema": uri added when
// it has none.
func withSchema(schema json.RawMessage, uri string) json.RawMessage {
	if uri == "" {
		return schema
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(schema, &m) != nil || m == nil || m["$schema"] != nil {
		return schema
	}
	u, _ := json.Marshal(uri)
	m["$schema"] = u
	out, _ := json.Marshal(m)
	return out
}

// TestJSONSchemaTestSuite runs every case of the suite's draft2020-12,
// draft2019-09 and draft7 folders, optional/ included, on the host's own
// path: the compiler the host uses, without remote documents (the host
// never fetches), draft-07 roots with their "$schema", and the budget of
// each value's size. The optional/format/ files, which test format
// assertion, run with it turned on, as a provider's configuration does;
// the mandatory format.json runs with the default (an annotation in
// 2019-09 and 2020-12).
//
// Every case must get the suite's verdict, but those that remotes.txt
// names: they depend on a document of the suite's remotes/ folder. Each
// of those must get the wrong verdict on the host's path and the right
// one with remotes/ served (so the list holds exactly the cases a fetch
// would change), and a wrong case that remotes/ would set right must be
// in it. skip.txt would list cases decided otherwise on purpose, with the
// reason (none today). It logs the table: pass, remote and wrong per
// draft.
func TestJSONSchemaTestSuite(t *testing.T) {
	skips := readSkips(t)
	remote := readRemoteCases(t)
	listed := map[suiteCase]bool{}
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
		total, passed, remoteN, skipped, wrong := 0, 0, 0, 0, 0
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
			var opts []Option
			if formatOf(rel) != "" {
				opts = append(opts, WithFormatAssertion(true))
			}
			for _, g := range groups {
				schema := withSchema(g.Schema, sd.schema)
				s, compileErr := NewCompiler(opts...).Compile(schema)
				var served *Schema
				var servedErr error
				servedOnce := false
				for _, tc := range g.Tests {
					total++
					c := suiteCase{rel, g.Description, tc.Description}
					got, why := suiteOutcome(s, compileErr, tc.Data)
					if !servedOnce {
						served, servedErr = NewCompiler(append(opts, WithLoader(suiteLoader))...).Compile(schema)
						servedOnce = true
					}
					withRemotes, _ := suiteOutcome(served, servedErr, tc.Data)
					var skip *skipEntry
					for _, e := range skips {
						if e.matches(c) {
							skip = e
							break
						}
					}
					switch {
					case remote[c]:
						listed[c] = true
						if got == tc.Valid {
							t.Errorf("%s: right on the host's path, but remotes.txt lists it: remove the line", c)
						} else if withRemotes != tc.Valid {
							t.Errorf("%s: listed in remotes.txt, but wrong with remotes/ served too (%s)", c, why)
						}
						remoteN++
					case got == tc.Valid && skip != nil && skip.test != "*":
						t.Errorf("%s: passes, but skip.txt lists it: remove the entry", c)
					case got == tc.Valid:
						passed++
					case skip != nil:
						skip.used = true
						skipped++
					case withRemotes == tc.Valid:
						wrong++
						t.Errorf("%s: valid = %v, want %v (%s); right with remotes/ served: list it in remotes.txt", c, got, tc.Valid, why)
					default:
						wrong++
						t.Errorf("%s: valid = %v, want %v (%s)", c, got, tc.Valid, why)
					}
				}
			}
		}
		table = append(table, fmt.Sprintf("%-13s %5d cases  %5d pass  %4d remote  %3d skip  %3d wrong", sd.dir, total, passed, remoteN, skipped, wrong))
	}
	for c := range remote {
		if !listed[c] {
			t.Errorf("remotes.txt: %s is no case of the suite: remove the line", c)
		}
	}
	for _, e := range skips {
		if !e.used && e.test == "*" {
			t.Errorf("skip.txt: %s matches no failing case: remove the entry", e.suiteCase)
		}
	}
	t.Logf("JSON Schema Test Suite\n%s", strings.Join(table, "\n"))
}

// suiteOutcome is whether data is valid against the compiled schema as the
// host decides it (a schema that cannot be used refuses everything, and so
// does a validation past its budget), and why not.
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

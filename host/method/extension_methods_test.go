package method

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// jsMethodsFile is the extension's table of the host's method names.
const jsMethodsFile = "../../extension/shared/core/methods.js"

// jsMethodEntry matches one `NAME: 'method.name',` line of a frozen object
// literal.
var jsMethodEntry = regexp.MustCompile(`^\s*([A-Z_]+): '([a-z.A-Z]+)',$`)

// jsMethods returns the entries of methods.js's METHODS object in order,
// each as "KEY=value", so a key that does not spell its value shows in the
// diff.
func jsMethods(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile(jsMethodsFile)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "export const METHODS = Object.freeze({\n")
	if !ok {
		t.Fatalf("%s has no `export const METHODS = Object.freeze({`", jsMethodsFile)
	}
	body, _, ok = strings.Cut(body, "\n});")
	if !ok {
		t.Fatalf("%s: METHODS's object literal does not end with `});`", jsMethodsFile)
	}
	var out []string
	for _, line := range strings.Split(body, "\n") {
		m := jsMethodEntry.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("%s: METHODS holds a line that is not `NAME: 'method.name',`: %q", jsMethodsFile, line)
		}
		out = append(out, m[1]+"="+m[2])
	}
	return out
}

// jsKey is the key METHODS gives a method: its name in upper case, dots
// as underscores.
func jsKey(name string) string { return strings.ToUpper(strings.ReplaceAll(name, ".", "_")) }

func TestExtensionMethodsListEveryMethodInOrder(t *testing.T) {
	var want []string
	for _, n := range Names {
		want = append(want, jsKey(n)+"="+n)
	}
	if d := cmp.Diff(want, jsMethods(t)); d != "" {
		t.Errorf("%s's METHODS differs from Names in names.go (-Go +JavaScript):\n%s", jsMethodsFile, d)
	}
}

// documented returns, from the protocol documents, the method each
// "### `name`" heading describes, and every heading line.
func documented(t *testing.T) (names []string, headings []string) {
	t.Helper()
	heading := regexp.MustCompile("^### `([a-z]+(?:\\.[a-zA-Z]+)?)`")
	for _, doc := range []string{"../../docs/protocol.md", "../../docs/host-methods.md"} {
		f, err := os.Open(doc)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "### ") {
				continue
			}
			headings = append(headings, line)
			if m := heading.FindStringSubmatch(line); m != nil {
				names = append(names, m[1])
			}
		}
		f.Close()
	}
	return names, headings
}

// Every method in Names has a heading in docs/protocol.md or
// docs/host-methods.md, and every method heading there is in Names.
func TestNamesAreTheDocumentedMethods(t *testing.T) {
	names, headings := documented(t)
	if len(names) < 10 {
		t.Fatalf("found %d method headings in the docs; they were not read right", len(names))
	}
	known := map[string]bool{}
	for _, n := range Names {
		known[n] = true
		found := false
		for _, h := range headings {
			if strings.Contains(h, "`"+n+"`") {
				found = true
			}
		}
		if !found {
			t.Errorf("method %q has no heading in docs/protocol.md or docs/host-methods.md", n)
		}
	}
	for _, n := range names {
		if !known[n] {
			t.Errorf("the docs describe method %q, which Names lacks", n)
		}
	}
}

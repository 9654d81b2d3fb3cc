package wire

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// jsCodesFile is the extension's module of the wire's codes.
const jsCodesFile = "../../extension/shared/core/codes.js"

// jsCodeEntry matches one `NAME: 'VALUE',` line of a frozen object literal.
var jsCodeEntry = regexp.MustCompile(`^\s*([A-Z_]+): '([A-Z_]+)',$`)

// jsCodes returns the entries of codes.js's CODES object in order, each as
// "NAME=VALUE", so a key that differs from its value shows in the diff.
func jsCodes(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile(jsCodesFile)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "export const CODES = Object.freeze({\n")
	if !ok {
		t.Fatalf("%s has no `export const CODES = Object.freeze({`", jsCodesFile)
	}
	body, _, ok = strings.Cut(body, "\n});")
	if !ok {
		t.Fatalf("%s: CODES's object literal does not end with `});`", jsCodesFile)
	}
	var codes []string
	for _, line := range strings.Split(body, "\n") {
		m := jsCodeEntry.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("%s: CODES holds a line that is not `NAME: 'NAME',`: %q", jsCodesFile, line)
		}
		codes = append(codes, m[1]+"="+m[2])
	}
	return codes
}

func TestExtensionCodesListEveryCodeInOrder(t *testing.T) {
	var want []string
	for _, c := range declaredCodes(t) {
		want = append(want, c+"="+c)
	}
	got := jsCodes(t)
	if len(want) == 0 {
		t.Fatal("found no Code constants in errors.go")
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s's CODES differs from the Code constants of errors.go (-Go +JavaScript):\n%s", jsCodesFile, d)
	}
}

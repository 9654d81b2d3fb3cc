package wire

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// declaredCodes returns the values of the Code constants declared in this
// package's errors.go, in source order: reading the source, not a list kept
// beside it, means a constant added without documentation is caught.
func declaredCodes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if typ, ok := vs.Type.(*ast.Ident); !ok || typ.Name != "Code" {
				continue
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("a Code constant's value is not a string literal: %#v", v)
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				codes = append(codes, s)
			}
		}
	}
	return codes
}

// documentedCodes returns the first column of the table under "## Error
// codes" in docs/protocol.md, in order.
func documentedCodes(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var codes []string
	inSection := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			inSection = line == "## Error codes"
			continue
		}
		if !inSection || !strings.HasPrefix(line, "| `") {
			continue
		}
		cell, _, _ := strings.Cut(strings.TrimPrefix(line, "| `"), "`")
		codes = append(codes, cell)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return codes
}

func TestProtocolDocListsEveryCodeInOrder(t *testing.T) {
	declared, documented := declaredCodes(t), documentedCodes(t)
	if len(declared) == 0 || len(documented) == 0 {
		t.Fatalf("found %d constants and %d documented codes; the test cannot read errors.go or docs/protocol.md as it expects", len(declared), len(documented))
	}
	if d := cmp.Diff(declared, documented); d != "" {
		t.Errorf("docs/protocol.md's error table differs from the Code constants (-constants +doc):\n%s", d)
	}
}

package runtime

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func validate(t *testing.T, schema, args string) []Violation {
	t.Helper()
	s, err := NewQRIValidator().Compile(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("compile %s: %v", schema, err)
	}
	vs, err := s.Validate(json.RawMessage(args))
	if err != nil {
		t.Fatalf("validate: %v", err)
	}
	return vs
}

func TestSchemasNeverMakeTheValidatorTouchTheNetwork(t *testing.T) {
	var hits atomic.Int64
	// The remote document would reject a number: if it were fetched, the
	// validation below would fail as well as count a hit.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `{"type":"string","$defs":{"s":{"type":"string"}}}`)
	}))
	defer srv.Close()
	u := srv.URL
	schemas := map[string]string{
		"absolute $ref":                     `{"type":"object","properties":{"a":{"$ref":"` + u + `/x"}}}`,
		"absolute $ref with a fragment":     `{"type":"object","properties":{"a":{"$ref":"` + u + `/x#/$defs/s"}}}`,
		"relative $ref against an http $id": `{"$id":"` + u + `/root","type":"object","properties":{"a":{"$ref":"other"}}}`,
		"fragment $ref under an http $id":   `{"$id":"` + u + `/root","type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"number"}}}`,
		"$recursiveRef under an http $id":   `{"$id":"` + u + `/root","$recursiveAnchor":true,"type":"object","properties":{"a":{"type":"number"},"b":{"$recursiveRef":"#"}}}`,
		"$ref as the whole schema":          `{"$ref":"` + u + `/x"}`,
		"$ref nested in $defs":              `{"type":"object","properties":{"a":{"$ref":"#/$defs/r"}},"$defs":{"r":{"$ref":"` + u + `/x"}}}`,
	}
	for name, schema := range schemas {
		t.Run(name, func(t *testing.T) {
			vs := validate(t, schema, `{"a":5,"b":{"a":1}}`)
			if len(vs) != 0 {
				t.Errorf("violations %v: the remote document was used", vs)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the validator made %d HTTP requests", n)
	}
}

func TestSchemasNeverMakeTheValidatorReadFiles(t *testing.T) {
	dir := t.TempDir()
	// If read, this document would reject a number.
	if err := os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"type":"string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// A FIFO with no writer: opening it for reading would block for ever.
	fifo := filepath.Join(dir, "fifo.json")
	_ = mkfifo(fifo)
	fileURL := "file://" + filepath.ToSlash(dir)
	schemas := map[string]string{
		"absolute file $ref":             `{"type":"object","properties":{"a":{"$ref":"` + fileURL + `/s.json"}}}`,
		"relative $ref against file $id": `{"$id":"` + fileURL + `/root.json","type":"object","properties":{"a":{"$ref":"s.json"}}}`,
		"file $ref to a fifo":            `{"type":"object","properties":{"a":{"$ref":"` + fileURL + `/fifo.json"}}}`,
		"plain relative path $ref":       `{"type":"object","properties":{"a":{"$ref":"` + filepath.ToSlash(dir) + `/s.json"}}}`,
	}
	for name, schema := range schemas {
		t.Run(name, func(t *testing.T) {
			if vs := validate(t, schema, `{"a":5}`); len(vs) != 0 {
				t.Errorf("violations %v: the file was read", vs)
			}
		})
	}
}

func TestValidatorWarnsAboutWhatItDoesNotFollow(t *testing.T) {
	s, err := NewQRIValidator().Compile(json.RawMessage(`{"properties":{"a":{"$ref":"https://example.com/a.json"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	w := s.(interface{ Warnings() []string }).Warnings()
	want := []string{`/properties/a/$ref: external reference "https://example.com/a.json" is not followed; that part is not validated`}
	if diff := cmp.Diff(want, w); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestValidatorUnderstandsLocalRefsAndDraft201909(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		args   string
		valid  bool
	}{
		{"#/definitions ref accepts", `{"properties":{"p":{"$ref":"#/definitions/pt"}},"definitions":{"pt":{"type":"object","required":["x"]}}}`, `{"p":{"x":1}}`, true},
		{"#/definitions ref rejects", `{"properties":{"p":{"$ref":"#/definitions/pt"}},"definitions":{"pt":{"type":"object","required":["x"]}}}`, `{"p":{}}`, false},
		{"#/$defs ref rejects", `{"properties":{"p":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"integer"}}}`, `{"p":1.5}`, false},
		{"nested definitions path", `{"properties":{"p":{"$ref":"#/definitions/a/definitions/b"}},"definitions":{"a":{"definitions":{"b":{"type":"string"}}}}}`, `{"p":3}`, false},
		{"a property named definitions is still a property", `{"type":"object","properties":{"definitions":{"type":"string"}},"required":["definitions"]}`, `{"definitions":"x"}`, true},
		{"$anchor ref", `{"properties":{"p":{"$ref":"#pt"}},"$defs":{"x":{"$anchor":"pt","type":"string"}}}`, `{"p":1}`, false},
		{"oneOf picks exactly one", `{"properties":{"s":{"oneOf":[{"type":"integer"},{"type":"number"}]}}}`, `{"s":1}`, false},
		{"dependentRequired", `{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, false},
		{"minContains", `{"properties":{"l":{"contains":{"type":"string"},"minContains":2}}}`, `{"l":["a",1]}`, false},
		{"draft-07 $schema is accepted", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"number"}}}`, `{"n":"x"}`, false},
		{"enum", `{"properties":{"b":{"enum":["left","right"]}}}`, `{"b":"middle"}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs := validate(t, tc.schema, tc.args)
			if got := len(vs) == 0; got != tc.valid {
				t.Errorf("valid = %v, want %v (violations %v)", got, tc.valid, vs)
			}
		})
	}
}

func TestValidatorPointsAtTheOffendingValue(t *testing.T) {
	vs := validate(t, `{"type":"object","properties":{"pt":{"type":"object","properties":{"x":{"type":"integer"}}}}}`, `{"pt":{"x":"one"}}`)
	want := []Violation{{Path: "/pt/x", Message: `type should be integer, got string`}}
	if diff := cmp.Diff(want, vs); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

func TestOneCompiledSchemaIsSafeForConcurrentValidation(t *testing.T) {
	s, err := NewQRIValidator().Compile(json.RawMessage(`{"properties":{"p":{"$ref":"#/definitions/pt"},"q":{"$ref":"#/$defs/q"}},"definitions":{"pt":{"type":"object","required":["x"]}},"$defs":{"q":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var wrong atomic.Int64
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				args, wantValid := `{"p":{"x":1},"q":"s"}`, true
				if (g+i)%2 == 0 {
					args, wantValid = `{"p":{},"q":1}`, false
				}
				vs, err := s.Validate(json.RawMessage(args))
				if err != nil || (len(vs) == 0) != wantValid {
					wrong.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := wrong.Load(); n != 0 {
		t.Errorf("%d of 1600 concurrent validations were wrong", n)
	}
}

func TestCompileRejectsWhatIsNotASchema(t *testing.T) {
	for _, s := range []string{`not json`, `{"properties":7}`, `{"$ref":5}`} {
		if _, err := NewQRIValidator().Compile(json.RawMessage(s)); err == nil {
			t.Errorf("Compile(%s) succeeded", s)
		} else if strings.Contains(err.Error(), "panic") {
			t.Logf("Compile(%s): %v", s, err)
		}
	}
}

func TestSelfReferentialSchemasAreRejectedNotFatal(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		cycle  bool
	}{
		{"root refers to itself", `{"$ref":"#"}`, true},
		{"two defs refer to each other", `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}}}`, true},
		{"cycle through definitions and anyOf", `{"properties":{"x":{"$ref":"#/definitions/a"}},"definitions":{"a":{"anyOf":[{"type":"string"},{"$ref":"#/definitions/a"}]}}}`, true},
		{"cycle through an anchor", `{"$defs":{"a":{"$anchor":"top","not":{"$ref":"#top"}}},"properties":{"p":{"$ref":"#top"}}}`, true},
		{"escaped pointer tokens", `{"$defs":{"a/b":{"$ref":"#/$defs/a~1b"}},"$ref":"#/$defs/a~1b"}`, true},
		{"recursion through properties is fine", `{"type":"object","properties":{"child":{"$ref":"#"}}}`, false},
		{"recursion through items is fine", `{"$defs":{"tree":{"type":"array","items":{"$ref":"#/$defs/tree"}}},"$ref":"#/$defs/tree"}`, false},
		{"a ref to an unknown place is not a cycle", `{"$ref":"#/$defs/nope"}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewQRIValidator().Compile(json.RawMessage(tc.schema))
			if tc.cycle {
				if err == nil || !strings.Contains(err.Error(), "without consuming input") {
					t.Fatalf("Compile error = %v, want a cycle error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if _, err := s.Validate(json.RawMessage(`{"child":{"child":{}}}`)); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

// FuzzCompileAndValidate: no schema a provider sends, and no arguments,
// may crash the host.
func FuzzCompileAndValidate(f *testing.F) {
	f.Add([]byte(`{"$ref":"#"}`), []byte(`{}`))
	f.Add([]byte(`{"properties":{"a":{"$ref":"#/definitions/x"}},"definitions":{"x":{"oneOf":[{"type":"string"},{"$ref":"#"}]}}}`), []byte(`{"a":{"a":1}}`))
	f.Add([]byte(`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"not":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`), []byte(`{"x":[1,2]}`))
	f.Add([]byte(`{"$id":"http://127.0.0.1:1/x","$ref":"y","$recursiveRef":"#","$anchor":"a"}`), []byte(`[]`))
	f.Add([]byte(`{"if":{"$ref":"#/then"},"then":{"$ref":"#/else"},"else":{"$ref":"#/if"}}`), []byte(`1`))
	f.Fuzz(func(t *testing.T, schema, args []byte) {
		s, err := NewQRIValidator().Compile(schema)
		if err != nil || !json.Valid(args) {
			return
		}
		_, _ = s.Validate(args)
	})
}

func TestRefRecursionIsBoundedAtValidation(t *testing.T) {
	// qri-io reads "##then" as "#", and "#/" as the root: a cycle the static
	// check does not see. The depth bound must end it with an error.
	s, err := NewQRIValidator().Compile(json.RawMessage(`{"if":{"$ref":"##then"},"then":{"$ref":"#/"}}`))
	if err != nil {
		t.Skipf("rejected at compile time: %v", err)
	}
	if _, err := s.Validate(json.RawMessage(`1`)); err == nil || !strings.Contains(err.Error(), "nest deeper") {
		t.Errorf("Validate error = %v, want the depth bound", err)
	}
	// Legitimate recursion that follows the arguments is not bounded by it.
	tree, err := NewQRIValidator().Compile(json.RawMessage(`{"type":"object","properties":{"c":{"$ref":"#"},"n":{"type":"integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat(`{"c":`, 500) + `{"n":"x"}` + strings.Repeat(`}`, 500)
	vs, err := tree.Validate(json.RawMessage(deep))
	if err != nil || len(vs) != 1 {
		t.Errorf("deep arguments: violations %v, err %v; want one violation at the bottom", vs, err)
	}
}

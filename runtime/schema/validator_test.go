package schema

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

// validate checks args against schema as the host does by default.
func validate(t *testing.T, schema, args string) []Violation {
	t.Helper()
	return validateWith(t, schema, args)
}

// validateAsserting checks args against schema with format assertion on
// (as a provider's configuration may ask), in every dialect.
func validateAsserting(t *testing.T, schema, args string) []Violation {
	t.Helper()
	return validateWith(t, schema, args, WithFormatAssertion(true))
}

func validateWith(t *testing.T, schema, args string, opts ...Option) []Violation {
	t.Helper()
	s, err := NewCompiler(opts...).Compile(json.RawMessage(schema))
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
	s, err := NewCompiler().Compile(json.RawMessage(`{"properties":{"a":{"$ref":"https://example.com/a.json"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	w := s.Warnings()
	want := []string{`: /properties/a/$ref refers to https://example.com/a.json, which the host does not fetch: that part accepts anything`}
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
	want := []Violation{{Path: "/pt/x", Keyword: "type", Message: `must be integer, not string`, KeywordLocation: "/properties/pt/properties/x/type"}}
	if diff := cmp.Diff(want, vs); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

func TestOneCompiledSchemaIsSafeForConcurrentValidation(t *testing.T) {
	s, err := NewCompiler().Compile(json.RawMessage(`{"properties":{"p":{"$ref":"#/definitions/pt"},"q":{"$ref":"#/$defs/q"}},"definitions":{"pt":{"type":"object","required":["x"]}},"$defs":{"q":{"type":"string"}}}`))
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
		if _, err := NewCompiler().Compile(json.RawMessage(s)); err == nil {
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
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewCompiler().Compile(json.RawMessage(tc.schema))
			if tc.cycle {
				if err == nil || !strings.Contains(err.Error(), "refers to itself without descending") {
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
		s, err := NewCompiler().Compile(schema)
		if err != nil || !json.Valid(args) {
			return
		}
		_, _ = s.Validate(args)
	})
}

// Values nested deeper than MaxEvalDepth are refused with a violation at
// the place that is too deep, blaming the value, not the schema; values
// up to it (2,001 levels of a recursive "$ref" among them) are checked.
func TestDeepValuesAreBlamedNotTheSchema(t *testing.T) {
	tree, err := NewCompiler().Compile(json.RawMessage(`{"type":"object","properties":{"c":{"$ref":"#"},"n":{"type":"integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	nest := func(n int, leaf string) json.RawMessage {
		return json.RawMessage(strings.Repeat(`{"c":`, n) + leaf + strings.Repeat(`}`, n))
	}
	vs, err := tree.Validate(nest(2001, `{"n":1}`))
	if err != nil || len(vs) != 0 {
		t.Errorf("2,001 valid levels: violations %v, err %v", vs, err)
	}
	vs, err = tree.Validate(nest(2001, `{"n":"x"}`))
	if err != nil || len(vs) != 1 || vs[0].Keyword != "type" {
		t.Errorf("2,001 levels, invalid at the bottom: violations %v, err %v", vs, err)
	}
	// Each level applies two schemas (the property's and the one its
	// "$ref" lands on): half of MaxEvalDepth levels is as deep as it goes.
	vs, err = tree.Validate(nest(MaxEvalDepth/2+10, `{"n":1}`))
	if err != nil || len(vs) != 1 || !strings.Contains(vs[0].Message, "nested too deep here to be checked") || strings.Count(vs[0].Path, "/c") < MaxEvalDepth/2-2 {
		t.Errorf("past the bound: violations %.300v, err %v", vs, err)
	}
}

func TestViolationsNameTheFailingKeyword(t *testing.T) {
	tests := []struct {
		name, schema, args string
		want               []Violation
	}{
		{"type", `{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":"x"}`,
			[]Violation{{Path: "/a", Keyword: "type", Message: "must be integer, not string", KeywordLocation: "/properties/a/type"}}},
		{"required", `{"type":"object","required":["a"]}`, `{}`,
			[]Violation{{Path: "/a", Keyword: "required", Message: `"a" is required`, KeywordLocation: "/required"}}},
		{"enum inside a $ref", `{"type":"object","properties":{"k":{"$ref":"#/$defs/k"}},"$defs":{"k":{"enum":["a","b"]}}}`, `{"k":"c"}`,
			[]Violation{{Path: "/k", Keyword: "enum", Message: `must be one of ["a","b"]`, KeywordLocation: "/properties/k/$ref/enum"}}},
		{"additionalProperties false", `{"type":"object","properties":{},"additionalProperties":false}`, `{"x":1}`,
			[]Violation{{Path: "/x", Keyword: "additionalProperties", Message: `"x" is not allowed (additionalProperties is false); allowed: none`, KeywordLocation: "/additionalProperties"}}},
		{"anyOf", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"boolean"}]}}}`, `{"a":1}`,
			[]Violation{
				{Path: "/a", Keyword: "anyOf", KeywordLocation: "/properties/a/anyOf",
					Message: "must match at least one of the 2 anyOf schemas; the closest is #0, whose errors follow (under /properties/a/anyOf/0); the others fail as #1: must be boolean, not integer"},
				{Path: "/a", Keyword: "type", Message: "must be string, not integer", KeywordLocation: "/properties/a/anyOf/0/type"},
			}},
		{"maximum and minLength together", `{"type":"object","properties":{"n":{"maximum":3},"s":{"minLength":2}}}`, `{"n":4,"s":"x"}`,
			[]Violation{
				{Path: "/n", Keyword: "maximum", Message: "must be at most 3", KeywordLocation: "/properties/n/maximum"},
				{Path: "/s", Keyword: "minLength", Message: "must be at least 2 characters long, not 1", KeywordLocation: "/properties/s/minLength"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, validate(t, tt.schema, tt.args)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOneOfNamesTheBranchesAValueMatched(t *testing.T) {
	tests := []struct {
		name, schema, args string
		want               []Violation
	}{
		{"two of two branches", `{"type":"object","properties":{"a":{"oneOf":[{"type":"integer"},{"type":"number"}]}}}`, `{"a":5}`,
			[]Violation{{Path: "/a", Keyword: "oneOf", Message: "must match exactly one of the 2 oneOf schemas, matched 2: branches #0, #1", KeywordLocation: "/properties/a/oneOf"}}},
		{"titled branches are named by title too", `{"oneOf":[{"title":"has a","required":["a"]},{"required":["c"]},{"title":"has b","required":["b"]}]}`, `{"a":1,"b":2}`,
			[]Violation{{Path: "", Keyword: "oneOf", Message: `must match exactly one of the 3 oneOf schemas, matched 2: branches #0 ("has a"), #2 ("has b")`, KeywordLocation: "/oneOf"}}},
		{"no branch", `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"boolean"}]}}}`, `{"a":5}`,
			[]Violation{
				{Path: "/a", Keyword: "oneOf", KeywordLocation: "/properties/a/oneOf",
					Message: "must match exactly one of the 2 oneOf schemas; the closest is #0, whose errors follow (under /properties/a/oneOf/0); the others fail as #1: must be boolean, not integer"},
				{Path: "/a", Keyword: "type", Message: "must be string, not integer", KeywordLocation: "/properties/a/oneOf/0/type"},
			}},
		// A discriminated union: the branch whose "kind" matches is the
		// closest, and its own errors are the ones given, with their
		// keyword locations through the "$ref".
		{"the closest branch of a tagged union", `{"oneOf":[{"$ref":"#/$defs/click"},{"$ref":"#/$defs/type"}],` +
			`"$defs":{"click":{"type":"object","properties":{"kind":{"const":"click"},"x":{"type":"integer"},"y":{"type":"integer"}},"required":["kind","x","y"]},` +
			`"type":{"type":"object","title":"type text","properties":{"kind":{"const":"type"},"text":{"type":"string"}},"required":["kind","text"]}}}`,
			`{"kind":"click","x":"10"}`,
			[]Violation{
				{Path: "", Keyword: "oneOf", KeywordLocation: "/oneOf",
					Message: `must match exactly one of the 2 oneOf schemas; the closest is #0, whose errors follow (under /oneOf/0); the others fail as #1 at /kind: must be "type"`},
				{Path: "/x", Keyword: "type", Message: "must be integer, not string", KeywordLocation: "/oneOf/0/$ref/properties/x/type"},
				{Path: "/y", Keyword: "required", Message: `"y" is required`, KeywordLocation: "/oneOf/0/$ref/required"},
			}},
		{"anyOf of a string or an object", `{"anyOf":[{"type":"string"},{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}]}`, `{"path":3}`,
			[]Violation{
				{Path: "", Keyword: "anyOf", KeywordLocation: "/anyOf",
					Message: "must match at least one of the 2 anyOf schemas; the closest is #1, whose errors follow (under /anyOf/1); the others fail as #0: must be string, not object"},
				{Path: "/path", Keyword: "type", Message: "must be string, not integer", KeywordLocation: "/anyOf/1/properties/path/type"},
			}},
		{"exactly one branch", `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"a":5}`,
			nil},
		{"one branch's properties count as evaluated", `{"type":"object","oneOf":[{"properties":{"a":{"type":"integer"}},"required":["a"]},{"required":["z"]}],"unevaluatedProperties":false}`, `{"a":1}`,
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, validate(t, tt.schema, tt.args)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUUIDAndDurationFormatsAreChecked(t *testing.T) {
	tests := []struct {
		format, value string
		valid         bool
	}{
		{"uuid", "123e4567-e89b-12d3-a456-426614174000", true},
		{"uuid", "123E4567-E89B-12D3-A456-426614174000", true},
		{"uuid", "123e4567e89b12d3a456426614174000", false},
		{"uuid", "123e4567-e89b-12d3-a456-42661417400", false},
		{"uuid", "g23e4567-e89b-12d3-a456-426614174000", false},
		{"uuid", "{123e4567-e89b-12d3-a456-426614174000}", false},
		{"duration", "P3DT4H", true},
		{"duration", "PT30S", true},
		{"duration", "P1Y2M3DT4H5M6S", true},
		{"duration", "P2W", true},
		{"duration", "P", false},
		{"duration", "PT", false},
		{"duration", "P1DT", false},
		{"duration", "P1H", false},
		{"duration", "1D", false},
		{"duration", "P2W3D", false},
		{"duration", "30 seconds", false},
		{"date-time", "2024-02-30T00:00:00Z", false},
		{"date-time", "2024-02-28T00:00:00Z", true},
	}
	for _, tt := range tests {
		t.Run(tt.format+" "+tt.value, func(t *testing.T) {
			schema := `{"type":"object","properties":{"v":{"type":"string","format":"` + tt.format + `"}}}`
			args, _ := json.Marshal(map[string]string{"v": tt.value})
			vs := validateAsserting(t, schema, string(args))
			if tt.valid && len(vs) > 0 {
				t.Errorf("%q is a valid %s, got %v", tt.value, tt.format, vs)
			}
			if !tt.valid && (len(vs) != 1 || vs[0].Keyword != "format" || vs[0].Path != "/v") {
				t.Errorf("%q is not a valid %s, got %+v", tt.value, tt.format, vs)
			}
		})
	}
}

func TestDraft07RefStandsAlone(t *testing.T) {
	schema := `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"reffed":{"type":"array"}},` +
		`"properties":{"foo":{"$ref":"#/definitions/reffed","maxItems":2}}}`
	if vs := validate(t, schema, `{"foo":[1,2,3]}`); len(vs) != 0 {
		t.Errorf("draft-07: maxItems beside $ref applied: %v", vs)
	}
	if vs := validate(t, schema, `{"foo":"x"}`); len(vs) != 1 {
		t.Errorf("draft-07: $ref not applied: %v", vs)
	}
	later := strings.Replace(schema, "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema", 1)
	if vs := validate(t, later, `{"foo":[1,2,3]}`); len(vs) != 1 {
		t.Errorf("2020-12: maxItems beside $ref not applied: %v", vs)
	}
}

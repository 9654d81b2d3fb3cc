package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// exponentialSchema is the audit's schema: each of depth levels is an
// allOf of two "$ref"s to the next, so a value is checked 2^depth times.
func exponentialSchema(depth int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/l0","$defs":{`)
	for i := range depth {
		fmt.Fprintf(&b, `"l%d":{"allOf":[{"$ref":"#/$defs/l%d"},{"$ref":"#/$defs/l%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"l%d":{"type":"object"}}}`, depth)
	return json.RawMessage(b.String())
}

// An exponential schema ends in ErrTooCostly once the value's budget is
// spent, after the same number of steps every time (so the same verdict
// on a busy machine as on an idle one), and a shallow one is decided.
func TestAnExponentialSchemaEndsInARefusalCountedInSteps(t *testing.T) {
	for _, depth := range []int{24, 32} {
		s, err := NewCompiler().Compile(exponentialSchema(depth))
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			b := &Budget{Steps: StepsFor(2)}
			_, err := s.ValidateValue(map[string]any{}, b)
			var ce *CostError
			if !errors.As(err, &ce) || !errors.Is(err, ErrTooCostly) || b.Steps != 0 || ce.Budget != StepsFor(2) {
				t.Fatalf("depth %d: err %v, %d steps left; want a CostError with the budget spent", depth, err, b.Steps)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("checking it takes more than the %d steps a value of its size is given", StepsFor(2))) {
				t.Errorf("message %q", err)
			}
		}
	}
	s, err := NewCompiler().Compile(exponentialSchema(10))
	if err != nil {
		t.Fatal(err)
	}
	if vs, err := s.Validate(json.RawMessage(`{}`)); err != nil || len(vs) != 0 {
		t.Errorf("depth 10: %v %v", vs, err)
	}
}

// The 1,000-item call: each item meets ^(a+)+$, which runs on the
// linear engine, so all are decided; the same items against a pattern
// that needs backtracking spend the budget and end in a refusal.
func TestAThousandCatastrophicItemsAreDecidedOrRefusedWithinTheBudget(t *testing.T) {
	item := `"` + strings.Repeat("a", 40) + `!"`
	args := json.RawMessage(`{"items":[` + strings.TrimSuffix(strings.Repeat(item+",", 1000), ",") + `]}`)
	linear, err := NewCompiler().Compile(json.RawMessage(`{"properties":{"items":{"items":{"pattern":"^(a+)+$"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := linear.Validate(args)
	if err != nil || len(vs) != MaxViolations+1 || vs[99].Path != "/items/99" ||
		vs[100] != (Violation{Message: "900 more violations are not listed (only the first 100 found are)"}) {
		t.Errorf("linear: %d violations, err %v; want the first 100 and how many more", len(vs), err)
	}
	if n := Unlisted(vs); n != 900 {
		t.Errorf("Unlisted = %d, want 900", n)
	}
	back, err := NewCompiler().Compile(json.RawMessage(`{"properties":{"items":{"items":{"pattern":"^(?=a)(a+)+$"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = back.Validate(args)
	var ce *CostError
	if !errors.As(err, &ce) || ce.Path != "/items/0" || ce.Keyword != "pattern" {
		t.Errorf("backtracking: err %v, want a CostError at /items/0 in pattern", err)
	}
}

func TestAValidationStopsWhenItsBudgetIsDone(t *testing.T) {
	s, err := NewCompiler().Compile(exponentialSchema(40))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	close(done)
	if _, err := s.ValidateValue(map[string]any{}, &Budget{Steps: 1 << 50, Done: done}); !errors.Is(err, ErrStopped) {
		t.Errorf("err %v, want ErrStopped", err)
	}
}

// uniqueItems finds duplicates by JSON equality in long arrays too
// (numbers by value, members in any order), and holds 12 bytes per item
// to do it, not a copy of every item.
func TestUniqueItemsOnLongArrays(t *testing.T) {
	s, err := NewCompiler().Compile(json.RawMessage(`{"uniqueItems":true}`))
	if err != nil {
		t.Fatal(err)
	}
	ints := func(n int, extra ...string) json.RawMessage {
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			fmt.Fprintf(&b, "%d,", i)
		}
		b.WriteString(strings.Join(append(extra, `"end"`), ","))
		b.WriteByte(']')
		return json.RawMessage(b.String())
	}
	tests := []struct {
		name string
		data json.RawMessage
		want string
	}{
		{"distinct", ints(1000), ""},
		{"1e2 equals 100", ints(1000, "1e2"), "items 100 and 1000 are equal; items must be unique"},
		{"5.0 equals 5", ints(1000, "5.0"), "items 5 and 1000 are equal; items must be unique"},
		{"objects in another member order", ints(50, `{"a":1,"b":[1,{"c":2}]}`, `{"b":[1,{"c":2.0}],"a":1}`), "items 50 and 51 are equal; items must be unique"},
		{"the first duplicate is named", ints(50, "3", "2"), "items 3 and 50 are equal; items must be unique"},
		{"1 is not true", ints(50, "true", "[1]", `"1"`), ""},
	}
	for _, tt := range tests {
		vs, err := s.Validate(tt.data)
		got := ""
		if len(vs) > 0 {
			got = vs[0].Message
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %q (%v), want %q", tt.name, got, err, tt.want)
		}
	}
	v, err := Decode(ints(1_000_000))
	if err != nil {
		t.Fatal(err)
	}
	n := allocated(func() { _, err = s.ValidateValue(v, &Budget{Steps: StepsFor(7_000_000)}) })
	if err != nil || n > 14_000_000 {
		t.Errorf("1,000,000 items: allocated %d bytes (%v), want at most 14 per item", n, err)
	}
}

func TestACostErrorNamesTheKeywordItStoppedIn(t *testing.T) {
	s, err := NewCompiler().Compile(exponentialSchema(30))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.ValidateValue(map[string]any{}, &Budget{Steps: 1000})
	var ce *CostError
	if !errors.As(err, &ce) || ce.Keyword != "$ref" && ce.Keyword != "allOf" || !strings.HasPrefix(ce.KeywordLocation, "/$ref/allOf/0/$ref/allOf/") {
		t.Errorf("%+v", ce)
	}
	for _, tt := range []struct {
		toks []string
		want string
	}{
		{[]string{"properties", "items", "items"}, "items"},
		{[]string{"properties", "allOf"}, "properties"},
		{[]string{"allOf", "1"}, "allOf"},
		{[]string{"items", "0", "$ref"}, "$ref"},
		{[]string{"items", "0"}, "items"},
	} {
		if got := lastKeyword(tt.toks); got != tt.want {
			t.Errorf("lastKeyword(%q) = %q, want %q", tt.toks, got, tt.want)
		}
	}
}

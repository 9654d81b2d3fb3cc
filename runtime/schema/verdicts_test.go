package schema

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The verdicts issue 39 found wrong on the host's path, each with the one
// the specification gives: the host's compiler as it is (no option, no
// loader), formats asserted where the case says the dialect or the
// configuration asks.
func TestTheSpecificationsVerdictsOnTheHostsPath(t *testing.T) {
	const d7 = `"$schema":"http://json-schema.org/draft-07/schema#",`
	tests := []struct {
		name, schema, instance string
		assert                 bool // format assertion turned on, as a provider's configuration may
		valid                  bool
	}{
		{"the IPv6: tag of an address literal is case-insensitive", `{"format":"email"}`, `"a@[ipv6:::1]"`, true, true},
		{"so is it in idn-email", `{"format":"idn-email"}`, `"a@[ipv6:::1]"`, true, true},
		{"the tag as RFC 5321 writes it", `{"format":"email"}`, `"a@[IPv6:2001:db8::1]"`, true, true},
		{"an IPv4 literal's Snum may have leading zeros", `{"format":"email"}`, `"a@[01.2.3.4]"`, true, true},
		{"so may it in idn-email", `{"format":"idn-email"}`, `"a@[01.2.3.004]"`, true, true},
		{"an Snum is at most 255", `{"format":"email"}`, `"a@[256.2.3.4]"`, true, false},
		{"an Snum is at most three digits", `{"format":"email"}`, `"a@[0001.2.3.4]"`, true, false},
		{"an IPv6 literal may end in an IPv4 one", `{"format":"email"}`, `"a@[IPv6:::ffff:01.2.3.4]"`, true, true},
		{"an unknown tag", `{"format":"email"}`, `"a@[IPv7:::1]"`, true, false},
		{"relative-json-pointer 0-0", `{"format":"relative-json-pointer"}`, `"0-0"`, true, true},
		{"relative-json-pointer 0+0/a", `{"format":"relative-json-pointer"}`, `"0+0/a"`, true, true},
		{"relative-json-pointer 0-01", `{"format":"relative-json-pointer"}`, `"0-01"`, true, false},
		{"2020-12: format is an annotation", `{"format":"email"}`, `"not an address"`, false, true},
		{"2019-09: format is an annotation", `{"$schema":"https://json-schema.org/draft/2019-09/schema","format":"ipv4"}`, `"1.2.3"`, false, true},
		{"draft-07: format is asserted", `{` + d7 + `"format":"ipv4"}`, `"1.2.3"`, false, false},
		{"2020-12 with assertion configured", `{"format":"ipv4"}`, `"1.2.3"`, true, false},
		{"a format the host does not check is an annotation even so", `{"format":"color"}`, `"not a color"`, true, true},
		{"2,001 valid levels against a recursive $ref", `{"type":"object","properties":{"c":{"$ref":"#"}}}`,
			strings.Repeat(`{"c":`, 2001) + `{}` + strings.Repeat(`}`, 2001), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewCompiler(WithFormatAssertion(tt.assert)).Compile(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			vs, err := s.Validate(json.RawMessage(tt.instance))
			if err != nil || (len(vs) == 0) != tt.valid {
				t.Errorf("%s against %s: violations %v (%v), want valid = %v", tt.instance, tt.schema, vs, err, tt.valid)
			}
		})
	}
}

// A pattern is ECMA-262 with the u flag or the schema cannot be used, with
// the reason; format "regex" refuses the same texts.
func TestPatternsThatAreNotECMA262MakeTheSchemaUnusable(t *testing.T) {
	for _, p := range []string{`(?i)^abc$`, `(?#comment)a`, `(?>a+)b`, `(?(1)a|b)`, `\A\d+\z`, `\e`, `\a`, `^\-\d$`} {
		q := jsonString(p)
		_, err := NewCompiler().Compile(json.RawMessage(`{"properties":{"p":{"pattern":` + q + `}}}`))
		if !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), "/properties/p/pattern: "+strconv.Quote(p)+" is not an ECMA-262 regular expression (with the u flag, as JSON Schema asks)") {
			t.Errorf("%s: compile error %v", p, err)
		}
		if formatChecks["regex"].valid(p) {
			t.Errorf("%s: format regex takes it", p)
		}
		_, err = NewCompiler().Compile(json.RawMessage(`{"patternProperties":{` + q + `:true}}`))
		if !errors.Is(err, ErrUnusable) {
			t.Errorf("%s in patternProperties: compile error %v", p, err)
		}
	}
}

// A reference that lands on nothing in the schema, and a 2019-09 or
// 2020-12 "$id" with a fragment, make the schema unusable, with the
// reason; a reference to a document the host does not fetch leaves that
// part accepting anything, with a warning.
func TestReferencesThatLandOnNothingMakeTheSchemaUnusable(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"a misspelled $defs name", `{"properties":{"n":{"$ref":"#/$defs/Nmber"}},"$defs":{"Number":{"type":"number"}}}`,
			`/properties/n/$ref: reference "#/$defs/Nmber": there is nothing at /$defs/Nmber`},
		{"an anchor no schema defines", `{"properties":{"n":{"$ref":"#nope"}}}`,
			`/properties/n/$ref: reference "#nope": the schema defines no anchor "nope"`},
		{"a 2020-12 $id with a fragment", `{"$defs":{"a":{"$id":"#foo","type":"string"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
			`/$defs/a: $id "#foo" has a fragment: in 2020-12 an $id names a resource, and a plain name is an "$anchor" (write "$anchor": "foo")`},
		{"a 2019-09 one", `{"$schema":"https://json-schema.org/draft/2019-09/schema","$defs":{"a":{"$id":"#foo"}}}`,
			`/$defs/a: $id "#foo" has a fragment: in 2019-09 an $id names a resource`},
		{"a pointer into a metaschema", `{"$ref":"https://json-schema.org/draft/2020-12/schema#/$defs/nothing"}`,
			`/$ref: reference "https://json-schema.org/draft/2020-12/schema#/$defs/nothing": there is nothing at /$defs/nothing in https://json-schema.org/draft/2020-12/schema`},
	}
	for _, tt := range tests {
		_, err := NewCompiler().Compile(json.RawMessage(tt.schema))
		if !errors.Is(err, ErrUnusable) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	// In draft-07, "$id": "#foo" is a plain-name anchor.
	s, err := NewCompiler().Compile(json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$id":"#foo","type":"string"}},"properties":{"x":{"$ref":"#foo"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if vs, _ := s.Validate(json.RawMessage(`{"x":1}`)); len(vs) != 1 {
		t.Errorf("draft-07 anchor: violations %v", vs)
	}
	s, err = NewCompiler().Compile(json.RawMessage(`{"properties":{"x":{"$ref":"https://example.com/s.json#/$defs/a"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{": /properties/x/$ref refers to https://example.com/s.json, which the host does not fetch: that part accepts anything"}
	if diff := cmp.Diff(want, s.Warnings()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// jsonString is s as a JSON string, without encoding/json's HTML escapes.
func jsonString(s string) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s)
	return strings.TrimSpace(b.String())
}

func TestFormatsSayWhichAreAsserted(t *testing.T) {
	schema := json.RawMessage(`{"properties":{"a":{"format":"email"},"b":{"format":"date"},"c":{"format":"color"},"d":{"$ref":"https://x.example/d7"}},` +
		`"$defs":{"d7":{"$schema":"http://json-schema.org/draft-07/schema#","$id":"https://x.example/d7","format":"ipv4"}}}`)
	tests := []struct {
		assert             bool
		asserted, annotate []string
	}{
		{false, []string{"ipv4"}, []string{"color", "date", "email"}},
		{true, []string{"date", "email", "ipv4"}, []string{"color"}},
	}
	for _, tt := range tests {
		s, err := NewCompiler(WithFormatAssertion(tt.assert)).Compile(schema)
		if err != nil {
			t.Fatal(err)
		}
		asserted, annotate := s.Formats()
		if diff := cmp.Diff([][]string{tt.asserted, tt.annotate}, [][]string{asserted, annotate}); diff != "" {
			t.Errorf("assert %v: (-want +got):\n%s", tt.assert, diff)
		}
	}
}

func TestSchemasThatNestTooDeepInPlaceCannotBeUsed(t *testing.T) {
	deep := func(n int) json.RawMessage {
		return json.RawMessage(strings.Repeat(`{"allOf":[`, n) + `{"type":"string"}` + strings.Repeat(`]}`, n))
	}
	if _, err := NewCompiler().Compile(deep(MaxInPlaceDepth - 1)); err != nil {
		t.Errorf("%d levels: %v", MaxInPlaceDepth-1, err)
	}
	_, err := NewCompiler().Compile(deep(MaxInPlaceDepth))
	if !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), "applies 201 schemas inside each other to one value") {
		t.Errorf("%d levels: %v", MaxInPlaceDepth, err)
	}
}

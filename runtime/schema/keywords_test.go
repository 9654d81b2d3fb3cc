package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The cases of issue 23, where qri-io/jsonschema v0.2.1 alone got it wrong: valid arguments refused, or invalid ones let through.
func TestKeywordsAcceptWhatTheSpecificationAccepts(t *testing.T) {
	tests := []struct {
		name, schema, args string
		want               []Violation
	}{
		{"an integer of 1e20", `{"properties":{"n":{"type":"integer"}}}`, `{"n":1e20}`, nil},
		{"an integer of 2^63", `{"properties":{"n":{"type":"integer"}}}`, `{"n":9223372036854775808}`, nil},
		{"a negative integer below -2^63", `{"properties":{"n":{"type":"integer"}}}`, `{"n":-1e19}`, nil},
		{"an integer written 3.0", `{"properties":{"n":{"type":"integer"}}}`, `{"n":3.0}`, nil},
		{"a fraction is not an integer", `{"properties":{"n":{"type":"integer"}}}`, `{"n":1.5}`,
			[]Violation{{Path: "/n", Keyword: "type", Message: "must be integer, not number", KeywordLocation: "/properties/n/type"}}},
		{"the string true is not a boolean", `{"properties":{"b":{"type":"boolean"}}}`, `{"b":"true"}`,
			[]Violation{{Path: "/b", Keyword: "type", Message: "must be boolean, not string", KeywordLocation: "/properties/b/type"}}},
		{"the string F is not a boolean", `{"properties":{"b":{"type":"boolean"}}}`, `{"b":"F"}`,
			[]Violation{{Path: "/b", Keyword: "type", Message: "must be boolean, not string", KeywordLocation: "/properties/b/type"}}},
		{"the string 1 is not a boolean", `{"properties":{"b":{"type":"boolean"}}}`, `{"b":"1"}`,
			[]Violation{{Path: "/b", Keyword: "type", Message: "must be boolean, not string", KeywordLocation: "/properties/b/type"}}},
		{"the string 1 is not a boolean among several types", `{"properties":{"b":{"type":["boolean","null"]}}}`, `{"b":"1"}`,
			[]Violation{{Path: "/b", Keyword: "type", Message: "must be boolean or null, not string", KeywordLocation: "/properties/b/type"}}},
		{"false is a boolean", `{"properties":{"b":{"type":"boolean"}}}`, `{"b":false}`, nil},
		{"0.07 is a multiple of 0.01", `{"properties":{"p":{"multipleOf":0.01}}}`, `{"p":0.07}`, nil},
		{"19.99 is a multiple of 0.01", `{"properties":{"p":{"multipleOf":0.01}}}`, `{"p":19.99}`, nil},
		{"1e20 is a multiple of 4", `{"properties":{"p":{"multipleOf":4}}}`, `{"p":1e20}`, nil},
		{"0.075 is not a multiple of 0.01", `{"properties":{"p":{"multipleOf":0.01}}}`, `{"p":0.075}`,
			[]Violation{{Path: "/p", Keyword: "multipleOf", Message: "must be a multiple of 0.01", KeywordLocation: "/properties/p/multipleOf"}}},
		{"a leap second in a date-time", `{"properties":{"t":{"format":"date-time"}}}`, `{"t":"2016-12-31T23:59:60Z"}`, nil},
		{"a leap second with an offset", `{"properties":{"t":{"format":"date-time"}}}`, `{"t":"2016-12-31T15:59:60-08:00"}`, nil},
		{"a leap second at the wrong minute", `{"properties":{"t":{"format":"date-time"}}}`, `{"t":"2016-12-31T23:58:60Z"}`,
			[]Violation{{Path: "/t", Keyword: "format", Message: "invalid date-time: must be an RFC 3339 date-time such as 2024-05-01T13:45:00Z", KeywordLocation: "/properties/t/format"}}},
		{"an offset of 24 hours", `{"properties":{"t":{"format":"date-time"}}}`, `{"t":"1990-12-31T15:59:59-24:00"}`,
			[]Violation{{Path: "/t", Keyword: "format", Message: "invalid date-time: must be an RFC 3339 date-time such as 2024-05-01T13:45:00Z", KeywordLocation: "/properties/t/format"}}},
		{"required points at the missing property", `{"type":"object","properties":{"to":{"type":"object","required":["email"]}},"required":["to","subject"]}`,
			`{"to":{}}`, []Violation{
				{Path: "/subject", Keyword: "required", Message: `"subject" is required`, KeywordLocation: "/required"},
				{Path: "/to/email", Keyword: "required", Message: `"email" is required`, KeywordLocation: "/properties/to/required"},
			}},
		{"required escapes the property name in the path", `{"required":["a/b~c"]}`, `{}`,
			[]Violation{{Path: "/a~1b~0c", Keyword: "required", Message: `"a/b~c" is required`, KeywordLocation: "/required"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, validateAsserting(t, tt.schema, tt.args)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

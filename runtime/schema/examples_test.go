package schema

import (
	"strings"
	"testing"
)

// verdict is whether instance is valid against schema, formats asserted.
func verdict(t *testing.T, schema, instance string) bool {
	t.Helper()
	return len(validateAsserting(t, schema, instance)) == 0
}

// TestTheIssueExamplesGetTheSpecificationsVerdict: each minimal example of
// issue 31, where the former validator (qri-io/jsonschema based) gave the
// wrong verdict, with the verdict the specification gives.
func TestTheIssueExamplesGetTheSpecificationsVerdict(t *testing.T) {
	const d7 = `"$schema":"http://json-schema.org/draft-07/schema#",`
	tests := []struct {
		name, schema, instance string
		valid                  bool
	}{
		{"uniqueItems false allows duplicates", `{"type":"array","uniqueItems":false}`, `[1,1]`, true},
		{"minContains 0 allows no match", `{"contains":{"const":1},"minContains":0}`, `[]`, true},
		{"dependentRequired met by a null", `{"dependentRequired":{"a":["b"]}}`, `{"a":1,"b":null}`, true},
		{"dependentRequired triggered by a null", `{"dependentRequired":{"a":["b"]}}`, `{"a":null}`, false},
		{"draft-07 dependencies", `{` + d7 + `"dependencies":{"a":["b"]}}`, `{"a":1}`, false},
		{"draft-07 has no unevaluatedProperties", `{` + d7 + `"unevaluatedProperties":false}`, `{"a":1}`, true},
		{"integer with a fraction past 2^53", `{"type":"integer"}`, `9007199254740990.99`, false},
		{"maximum 2^63-1 against 2^63", `{"type":"integer","maximum":9223372036854775807}`, `9223372036854775808`, false},
		{"const 2^53+1 against 2^53", `{"const":9007199254740993}`, `9007199254740992`, false},
		{"multipleOf 0.01 against 1.00000000000000001", `{"multipleOf":0.01}`, `1.00000000000000001`, false},
		{"exclusiveMaximum 2^64 against 2^64-1", `{"exclusiveMaximum":18446744073709551616}`, `18446744073709551615`, true},
		{"1e309 is a number", `{"type":"object","properties":{"n":{"type":"number"}}}`, `{"n":1e309}`, true},
		{"1e309 is an integer", `{"type":"integer"}`, `1e309`, true},
		{"maximum 1e309", `{"maximum":1e309}`, `1e308`, true},
		{"maximum 1e309 refuses 1e310", `{"maximum":1e309}`, `1e310`, false},
		{"ECMA \\S excludes U+00A0", `{"pattern":"^\\S+$"}`, `"a\u00a0b"`, false},
		{"ECMA \\s includes U+00A0", `{"pattern":"^[\\w\\s]+$"}`, `"a\u00a0b"`, true},
		{"ECMA . excludes U+2028", `{"pattern":"^.+$"}`, `"a\u2028"`, false},
		{"lookahead", `{"pattern":"^(?!\\s*$).+"}`, `"   "`, false},
		{"lookahead passes", `{"pattern":"^(?!\\s*$).+"}`, `" x "`, true},
		{"\\u escape", `{"pattern":"^caf\\u00e9$"}`, `"café"`, true},
		{"\\cA control escape", `{"pattern":"^\\cA$"}`, `"\u0001"`, true},
		{"[^] matches any character", `{"pattern":"^[^]$"}`, `"\n"`, true},
		{"\\p{L}", `{"pattern":"^\\p{L}+$"}`, `"éß"`, true},
		{"\\p{L} refuses digits", `{"pattern":"^\\p{L}+$"}`, `"é1"`, false},
		{"patternProperties in ECMA-262", `{"patternProperties":{"^\\p{Lu}":{"type":"integer"}}}`, `{"Éa":"x"}`, false},
		{"unevaluatedProperties with two matching anyOf branches",
			`{"anyOf":[{"properties":{"a":true}},{"properties":{"b":true}}],"unevaluatedProperties":false}`, `{"a":1,"b":1}`, true},
		{"unevaluatedProperties refuses what no branch evaluated",
			`{"anyOf":[{"properties":{"a":true}},{"properties":{"b":true}}],"unevaluatedProperties":false}`, `{"a":1,"c":1}`, false},
		{"$dynamicRef resolves in the dynamic scope",
			`{"$id":"https://example.com/root","$ref":"list","$defs":{"item":{"$dynamicAnchor":"item","type":"string"},` +
				`"list":{"$id":"list","type":"array","items":{"$dynamicRef":"#item"},"$defs":{"item":{"$dynamicAnchor":"item"}}}}}`, `[1]`, false},
		{"format hostname", `{"format":"hostname"}`, `"-bad-.example"`, false},
		{"format hostname passes", `{"format":"hostname"}`, `"a-b.example.com"`, true},
		{"an A-label of a code point IDNA 2008 disallows", `{"format":"hostname"}`, `"xn--7a.example"`, false},
		{"an A-label IDNA 2008 allows", `{"format":"hostname"}`, `"xn--bcher-kva.example"`, true},
		{"idn-hostname U-label", `{"format":"idn-hostname"}`, `"bücher.example"`, true},
		{"idn-hostname with U+00A1", `{"format":"idn-hostname"}`, `"¡.example"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verdict(t, tt.schema, tt.instance); got != tt.valid {
				t.Errorf("%s against %s: valid = %v, want %v", tt.instance, tt.schema, got, tt.valid)
			}
		})
	}
}

// TestACatastrophicPatternIsDecidedInLinearSteps: the issue's pattern
// has no lookaround or backreference, so it runs on the linear engine and
// a value it cannot match is refused at once, as a pattern violation.
func TestACatastrophicPatternIsDecidedInLinearSteps(t *testing.T) {
	got := validate(t, `{"properties":{"name":{"type":"string","pattern":"^(a+)+$"}}}`, `{"name":"`+strings.Repeat("a", 40)+`!"}`)
	if len(got) != 1 || got[0].Path != "/name" || got[0].Keyword != "pattern" || got[0].KeywordLocation != "/properties/name/pattern" {
		t.Errorf("violations %v, want one pattern violation at /name", got)
	}
}

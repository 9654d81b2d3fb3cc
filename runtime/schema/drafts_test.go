package schema

import "testing"

// TestDraft201909 covers what 2019-09 reads differently (the suite copy
// has no 2019-09 folder): items in its array form with additionalItems,
// $recursiveRef with $recursiveAnchor, and contains not counting for
// unevaluatedItems.
func TestDraft201909(t *testing.T) {
	const d = `"$schema":"https://json-schema.org/draft/2019-09/schema",`
	tests := []struct {
		name, schema, instance string
		valid                  bool
	}{
		{"items array with additionalItems false", `{` + d + `"items":[{"type":"integer"}],"additionalItems":false}`, `[1,2]`, false},
		{"items array with additionalItems passes", `{` + d + `"items":[{"type":"integer"}],"additionalItems":{"type":"string"}}`, `[1,"a"]`, true},
		{"prefixItems is not a 2019-09 keyword", `{` + d + `"prefixItems":[{"type":"integer"}]}`, `["a"]`, true},
		{"unevaluatedItems after additionalItems", `{` + d + `"items":[true],"additionalItems":true,"unevaluatedItems":false}`, `[1,2]`, true},
		{"contains does not evaluate items in 2019-09", `{` + d + `"contains":{"type":"string"},"unevaluatedItems":false}`, `["a"]`, false},
		{"contains evaluates items in 2020-12", `{"contains":{"type":"string"},"unevaluatedItems":false}`, `["a"]`, true},
		{"$recursiveRef extends through the outer resource",
			`{` + d + `"$id":"https://example.com/strict","$recursiveAnchor":true,"$ref":"tree","unevaluatedProperties":false,` +
				`"$defs":{"tree":{"$id":"tree","$recursiveAnchor":true,"type":"object","properties":{"data":true,"children":{"type":"array","items":{"$recursiveRef":"#"}}}}}}`,
			`{"children":[{"daat":1}]}`, false},
		{"$recursiveRef without the outer anchor stays local",
			`{` + d + `"$id":"https://example.com/loose","$ref":"tree","unevaluatedProperties":false,` +
				`"$defs":{"tree":{"$id":"tree","$recursiveAnchor":true,"type":"object","properties":{"data":true,"children":{"type":"array","items":{"$recursiveRef":"#"}}}}}}`,
			`{"children":[{"daat":1}]}`, true},
		{"$dynamicRef is not a 2019-09 keyword", `{` + d + `"$dynamicRef":"#/$defs/no","$defs":{"no":false}}`, `1`, true},
		{"dependentRequired", `{` + d + `"dependentRequired":{"a":["b"]}}`, `{"a":1}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verdict(t, tt.schema, tt.instance); got != tt.valid {
				t.Errorf("%s against %s: valid = %v, want %v", tt.instance, tt.schema, got, tt.valid)
			}
		})
	}
}

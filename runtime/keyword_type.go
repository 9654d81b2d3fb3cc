package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	jptr "github.com/qri-io/jsonpointer"
	"github.com/qri-io/jsonschema"
)

// typeKeyword is "type", checked strictly on the decoded JSON value. It
// replaces qri-io/jsonschema v0.2.1's, which (keywords_standard.go) tells an
// integer by float64(int(n)) == n, so every integer of 2^63 or more (1e20,
// 9223372036854775808) failed {"type":"integer"}, and which accepts the
// strings "true", "F", "1" (anything strconv.ParseBool takes) as booleans.
type typeKeyword struct {
	names []string
}

func newType() jsonschema.Keyword { return new(typeKeyword) }

// jsonTypes are the type names JSON Schema knows.
var jsonTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "string": true, "integer": true}

// UnmarshalJSON takes a type name or a list of them.
func (t *typeKeyword) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		t.names = []string{one}
	} else if err := json.Unmarshal(b, &t.names); err != nil {
		return fmt.Errorf("type must be a string or an array of strings: %w", err)
	}
	for _, n := range t.names {
		if !jsonTypes[n] {
			return fmt.Errorf("%q is not a JSON Schema type", n)
		}
	}
	return nil
}

// Register implements jsonschema.Keyword.
func (t *typeKeyword) Register(string, *jsonschema.SchemaRegistry) {}

// Resolve implements jsonschema.Keyword.
func (t *typeKeyword) Resolve(jptr.Pointer, string) *jsonschema.Schema { return nil }

// ValidateKeyword implements jsonschema.Keyword.
func (t *typeKeyword) ValidateKeyword(_ context.Context, state *jsonschema.ValidationState, data any) {
	got := jsonType(data)
	for _, want := range t.names {
		if want == got || (want == "number" && got == "integer") {
			return
		}
	}
	if len(t.names) == 1 {
		state.AddError(data, fmt.Sprintf("type should be %s, got %s", t.names[0], got))
		return
	}
	state.AddError(data, fmt.Sprintf("type should be one of: %s, got %s", strings.Join(t.names, ","), got))
}

// jsonType names the JSON type of a value decoded by encoding/json into
// any: a number is an "integer" when it has no fractional part, whatever
// its size.
func jsonType(v any) string {
	switch n := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case float64:
		if !math.IsInf(n, 0) && n == math.Trunc(n) {
			return "integer"
		}
		return "number"
	}
	return "unknown"
}

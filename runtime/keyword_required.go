package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	jptr "github.com/qri-io/jsonpointer"
	"github.com/qri-io/jsonschema"
)

// required is "required" with one violation per missing property, at that
// property's own path (/parent/name), naming it. It replaces
// qri-io/jsonschema v0.2.1's (keywords_object.go), whose violations all
// point at the parent object: a model fixes its call faster when told
// which property is missing and where.
type required []string

func newRequired() jsonschema.Keyword { return new(required) }

// UnmarshalJSON takes an array of property names.
func (r *required) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return fmt.Errorf("required must be an array of strings: %w", err)
	}
	*r = names
	return nil
}

// Register implements jsonschema.Keyword.
func (r *required) Register(string, *jsonschema.SchemaRegistry) {}

// Resolve implements jsonschema.Keyword.
func (r *required) Resolve(jptr.Pointer, string) *jsonschema.Schema { return nil }

// JSONProp implements jsonschema.JSONPather ("#/required/0" resolves).
func (r required) JSONProp(name string) any {
	i, err := strconv.Atoi(name)
	if err != nil || i < 0 || i >= len(r) {
		return nil
	}
	return r[i]
}

// ValidateKeyword implements jsonschema.Keyword.
func (r *required) ValidateKeyword(_ context.Context, state *jsonschema.ValidationState, data any) {
	obj, ok := data.(map[string]any)
	if !ok {
		return
	}
	for _, name := range *r {
		if _, ok := obj[name]; ok {
			continue
		}
		at := state.NewSubState()
		at.DescendInstance(name)
		at.AddError(nil, fmt.Sprintf("missing required property %s", strconv.Quote(name)))
	}
}

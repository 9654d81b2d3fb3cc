package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"

	jptr "github.com/qri-io/jsonpointer"
	"github.com/qri-io/jsonschema"
)

// constValue is one JSON value a "const" or an "enum" allows, decoded once
// and kept as its compact text for messages. qri-io/jsonschema v0.2.1
// (keywords_standard.go) decodes the value's text again at every
// validation, for every enum member tried: a fifth of the host's time on a
// structured result with enums.
type constValue struct {
	v    any
	text string
}

func (c *constValue) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &c.v); err != nil {
		return err
	}
	var buf bytes.Buffer
	if json.Compact(&buf, b) == nil {
		c.text = buf.String()
	} else {
		c.text = string(b)
	}
	return nil
}

// equals compares as JSON does: numbers by value (1 and 1.0 are equal,
// encoding/json decodes both to float64), arrays in order, objects by
// members.
func (c *constValue) equals(data any) bool { return reflect.DeepEqual(c.v, data) }

// constKeyword is "const".
type constKeyword struct{ constValue }

func newConst() jsonschema.Keyword { return new(constKeyword) }

// Register implements jsonschema.Keyword.
func (k *constKeyword) Register(string, *jsonschema.SchemaRegistry) {}

// Resolve implements jsonschema.Keyword.
func (k *constKeyword) Resolve(jptr.Pointer, string) *jsonschema.Schema { return nil }

// ValidateKeyword implements jsonschema.Keyword.
func (k *constKeyword) ValidateKeyword(_ context.Context, state *jsonschema.ValidationState, data any) {
	if !k.equals(data) {
		state.AddError(data, "must equal "+clip(k.text))
	}
}

// enumKeyword is "enum".
type enumKeyword []constValue

func newEnum() jsonschema.Keyword { return new(enumKeyword) }

// Register implements jsonschema.Keyword.
func (k *enumKeyword) Register(string, *jsonschema.SchemaRegistry) {}

// Resolve implements jsonschema.Keyword.
func (k *enumKeyword) Resolve(jptr.Pointer, string) *jsonschema.Schema { return nil }

// ValidateKeyword implements jsonschema.Keyword.
func (k *enumKeyword) ValidateKeyword(_ context.Context, state *jsonschema.ValidationState, data any) {
	for i := range *k {
		if (*k)[i].equals(data) {
			return
		}
	}
	texts := make([]string, len(*k))
	for i, c := range *k {
		texts[i] = c.text
	}
	state.AddError(data, "should be one of "+clip("["+strings.Join(texts, ", ")+"]"))
}

// clip cuts a value quoted in a message at 200 bytes.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

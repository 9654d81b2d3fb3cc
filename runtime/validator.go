package runtime

import (
	"encoding/json"

	"github.com/gnosis/gnosis/runtime/schema"
)

// Validator compiles input schemas. The runtime compiles each capability's
// schema once, at its first call, and validates every call's arguments with
// the result. The default is NewValidator, runtime/schema's.
type Validator interface {
	// Compile prepares schema for validation. It must never touch the network
	// or the disk, whatever the schema refers to.
	Compile(schema json.RawMessage) (Schema, error)
}

// Schema is a compiled input schema. Validate must be safe for concurrent use.
type Schema interface {
	// Validate checks arguments (a JSON value) and returns every violation;
	// none means valid. An error means the schema could not be evaluated.
	Validate(arguments json.RawMessage) ([]Violation, error)
}

// Violation is one way a value breaks a schema, as sent in
// INVALID_ARGUMENTS details: {"errors": [{"path", "keyword", "message"}]}.
type Violation = schema.Violation

// NewValidator returns the default Validator: runtime/schema's, exact to
// the JSON Schema specification (draft 2020-12 by default, 2019-09 and
// draft-07 by "$schema"), which never fetches what a schema refers to.
func NewValidator() Validator { return schemaValidator{schema.NewCompiler()} }

type schemaValidator struct{ c *schema.Compiler }

// Compile implements Validator.
func (v schemaValidator) Compile(raw json.RawMessage) (Schema, error) {
	s, err := v.c.Compile(raw)
	if err != nil {
		return nil, err
	}
	return s, nil
}

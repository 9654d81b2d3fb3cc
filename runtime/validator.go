package runtime

import (
	"encoding/json"
	"strings"

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
	// Validate checks a value as schema.Decode returns it and returns every
	// violation; none means valid. It spends budget, and fails with
	// schema.ErrTooCostly when that runs out (schema.ErrStopped once its
	// Done closes); any other error means the schema could not be
	// evaluated.
	Validate(value any, budget *schema.Budget) ([]Violation, error)
}

// Violation is one way a value breaks a schema, as sent in
// INVALID_ARGUMENTS details: {"errors": [{"path", "keyword", "message",
// "keywordLocation"}]}.
type Violation = schema.Violation

// NewValidator returns the default Validator: runtime/schema's, exact to
// the JSON Schema specification (draft 2020-12 by default, 2019-09 and
// draft-07 by "$schema"), which never fetches what a schema refers to.
// opts are runtime/schema's (schema.WithFormatAssertion).
func NewValidator(opts ...schema.Option) Validator {
	return schemaValidator{schema.NewCompiler(opts...)}
}

type schemaValidator struct{ c *schema.Compiler }

// Compile implements Validator.
func (v schemaValidator) Compile(raw json.RawMessage) (Schema, error) {
	s, err := v.c.Compile(raw)
	if err != nil {
		return nil, err
	}
	return compiledSchema{s}, nil
}

type compiledSchema struct{ s *schema.Schema }

func (c compiledSchema) Validate(v any, b *schema.Budget) ([]Violation, error) {
	return c.s.ValidateValue(v, b)
}

func (c compiledSchema) Warnings() []string { return c.s.Warnings() }

func (c compiledSchema) Formats() ([]string, []string) { return c.s.Formats() }

// Checks says what the host checks of a capability's arguments, as
// capabilities.describe reports it once the inputSchema has compiled:
// the formats it asserts, those it leaves as annotations (any string
// passes), and the parts of the schema it cannot check (references to
// documents it does not fetch, which accept anything).
type Checks struct {
	FormatsAsserted   []string `json:"formatsAsserted,omitempty"`
	FormatsNotChecked []string `json:"formatsNotChecked,omitempty"`
	Unchecked         []string `json:"unchecked,omitempty"`
}

// checksOf is what a compiled schema tells of its checks, nil when it
// says nothing (another Validator's schema) or has nothing to say.
func checksOf(s Schema) *Checks {
	var c Checks
	if f, ok := s.(interface{ Formats() ([]string, []string) }); ok {
		c.FormatsAsserted, c.FormatsNotChecked = f.Formats()
	}
	if w, ok := s.(interface{ Warnings() []string }); ok {
		for _, msg := range w.Warnings() {
			c.Unchecked = append(c.Unchecked, strings.TrimPrefix(msg, ": "))
		}
	}
	if len(c.FormatsAsserted)+len(c.FormatsNotChecked)+len(c.Unchecked) == 0 {
		return nil
	}
	return &c
}

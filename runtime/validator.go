package runtime

import "encoding/json"

// Validator compiles input schemas. The runtime compiles each capability's
// schema once, at its first call, and validates every call's arguments with
// the result. The default is the qri-io/jsonschema implementation (NewQRIValidator).
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
type Violation struct {
	// Path is a JSON pointer to the offending value ("" is the whole object).
	Path string `json:"path"`
	// Keyword is the schema keyword that failed ("type", "required",
	// "oneOf", "format", ...), so a client can act on it without parsing
	// Message.
	Keyword string `json:"keyword"`
	Message string `json:"message"`
}

package schema

// Option configures a Compiler.
type Option func(*options)

type options struct {
	draft         draft
	loader        func(uri string) ([]byte, bool)
	assertFormats bool
	formats       map[string]formatCheck // nil: formatChecks
}

// WithLoader lets "$ref"s to other documents resolve: load returns a
// document's bytes by its URI (no fragment), or false. Without one, only
// the schema itself and the embedded draft metaschemas resolve; the host
// never fetches what a schema points at.
func WithLoader(load func(uri string) ([]byte, bool)) Option {
	return func(o *options) { o.loader = load }
}

// WithFormatAssertion makes "format" an assertion in every dialect, for
// the formats the validator checks exactly (formats.go). Without it,
// 2019-09 and 2020-12 assert formats only when the schema's metaschema
// declares the format-assertion vocabulary (their default is annotation),
// and draft-07 asserts them (the draft lets a validator choose; the host
// does). A provider's configuration turns it on (docs/validation.md).
func WithFormatAssertion(on bool) Option { return func(o *options) { o.assertFormats = on } }

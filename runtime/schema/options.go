package schema

import "time"

// Option configures a Compiler.
type Option func(*options)

type options struct {
	draft        draft
	loader       func(uri string) ([]byte, bool)
	matchTimeout time.Duration
	formats      map[string]formatCheck // nil: formatChecks
}

// WithDefaultDraft sets the dialect of a schema without "$schema":
// "draft-07", "2019-09" or "2020-12" (the default, MCP's). A test suite
// written for one draft uses it; the host does not.
func WithDefaultDraft(name string) Option {
	return func(o *options) {
		switch name {
		case "draft-07", "draft7":
			o.draft = draft7
		case "2019-09", "draft2019-09":
			o.draft = draft2019
		default:
			o.draft = draft2020
		}
	}
}

// WithLoader lets "$ref"s to other documents resolve: load returns a
// document's bytes by its URI (no fragment), or false. Without one, only
// the schema itself and the embedded draft metaschemas resolve; the host
// never fetches what a schema points at.
func WithLoader(load func(uri string) ([]byte, bool)) Option {
	return func(o *options) { o.loader = load }
}

// WithMatchTimeout bounds each regular expression match (default
// DefaultMatchTimeout).
func WithMatchTimeout(d time.Duration) Option { return func(o *options) { o.matchTimeout = d } }

// DefaultMatchTimeout bounds one match of a "pattern", "patternProperties"
// or "format": "regex" value. ECMA-262 regular expressions backtrack, so a
// hostile pattern can take exponential time; past this a value is refused
// with a violation that says the pattern could not be decided.
const DefaultMatchTimeout = 100 * time.Millisecond

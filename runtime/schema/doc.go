// Package schema validates JSON values against JSON Schema exactly as the
// specification says, for arguments a model sends to a tool and results a
// tool returns: a valid call must never be refused and an invalid one
// never sent.
//
// It reads draft 2020-12 (the default, MCP's dialect), 2019-09 and
// draft-07 (and draft-04/06 as draft-07), chosen by "$schema". Numbers are
// compared from their literal text, exactly (number.go): 1e309 and 2^64 are
// numbers like any other. "pattern", "patternProperties" and "format":
// "regex" are ECMA-262 regular expressions with the u flag (package
// regex), compiled once per schema; a text that is not one makes the
// schema unusable. The formats of formats.go are asserted in draft-07,
// where a metaschema declares format assertion, and everywhere with
// WithFormatAssertion; otherwise, and for any other format, "format" is
// an annotation. A schema never makes the host fetch: "$ref"s resolve
// inside the schema, to the embedded metaschemas, or to what a Loader
// serves (tests); a reference to any other document leaves that part
// unchecked, with a warning, and one that lands on nothing in a document
// the compiler has makes the schema unusable.
//
// A validation spends a Budget counted in steps (budget.go): schema
// evaluations and pattern steps together, so an exponential schema or
// pattern ends in ErrTooCostly, the same on any machine, and a cancelled
// call stops. Values nest at most MaxDepth levels (decode.go) and schemas
// apply inside each other at most MaxEvalDepth levels; past that a value
// is refused with a violation where it is too deep. A failed anyOf or
// oneOf reports the errors of its closest branch (logic.go), each
// violation with its keyword location.
//
// One file per concern: compile.go and resources.go build a schema's nodes
// (node.go) and resolve its references (refs.go); decode.go reads values;
// validate.go walks them, with types.go, numbers.go, strings.go,
// arrays.go, unique.go, objects.go and logic.go for the keywords;
// formats.go, rfc3339.go, uri.go, hostname.go and uritemplate.go check the
// formats; bounds.go and cycle.go refuse schemas that would cost too much
// or never finish; metaschemas.go carries the drafts' metaschemas.
package schema

// Package schema validates JSON values against JSON Schema exactly as the
// specification says, for arguments a model sends to a tool and results a
// tool returns: a valid call must never be refused and an invalid one
// never sent.
//
// It reads draft 2020-12 (the default, MCP's dialect), 2019-09 and
// draft-07 (and draft-04/06 as draft-07), chosen by "$schema". Numbers are
// compared from their literal text, exactly (number.go): 1e309 and 2^64 are
// numbers like any other. "pattern", "patternProperties" and "format":
// "regex" are ECMA-262 regular expressions (pattern.go), compiled once per
// schema, each match bounded in time. The formats of formats.go are
// asserted; any other is an annotation. A schema never makes the host
// fetch: "$ref"s resolve inside the schema, to the embedded metaschemas,
// or to what a Loader serves (tests); any other leaves that part unchecked,
// with a warning.
//
// One file per concern: compile.go and resources.go build a schema's nodes
// (node.go) and resolve its references (refs.go); validate.go walks them,
// with types.go, numbers.go, strings.go, arrays.go, objects.go and
// logic.go for the keywords; formats.go, rfc3339.go, uri.go, hostname.go
// and uritemplate.go check the formats; bounds.go and cycle.go refuse
// schemas that would cost too much or never finish; metaschemas.go
// carries the drafts' metaschemas.
package schema

package schema

import (
	"github.com/gnosis/gnosis/runtime/schema/regex"
)

// draft is a JSON Schema dialect, chosen by "$schema".
type draft int

const (
	draft7    draft = 7    // draft-07 (and draft-04/06, read as draft-07)
	draft2019 draft = 2019 // draft 2019-09
	draft2020 draft = 2020 // draft 2020-12, the default (MCP's dialect)
)

func (d draft) String() string {
	switch d {
	case draft7:
		return "draft-07"
	case draft2019:
		return "2019-09"
	}
	return "2020-12"
}

// typeSet is a set of JSON types as bits.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tInteger
	tString
)

var typeBits = map[string]typeSet{
	"null": tNull, "boolean": tBoolean, "object": tObject, "array": tArray,
	"number": tNumber, "integer": tInteger, "string": tString,
}

// node is one compiled schema (an object or a boolean). Keywords absent
// from the schema are zero; counts that are absent are -1.
type node struct {
	ptr string // where the schema is: its document's URI and a JSON pointer, for messages
	res *resource

	isBool, accept bool // a boolean schema, and its value

	hasUneval bool // the schema has unevaluatedProperties or unevaluatedItems

	// Any type.
	types    typeSet
	hasConst bool
	constVal any
	enum     []any
	hasEnum  bool

	// Numbers.
	minimum, maximum, exclusiveMinimum, exclusiveMaximum *bound
	multipleOf                                           *decimal

	// Strings.
	minLength, maxLength int
	pattern              *pattern
	format               *formatCheck
	formatName           string
	contentBase64        bool // draft-07 contentEncoding "base64", asserted
	contentJSON          bool // draft-07 contentMediaType "application/json", asserted

	// Arrays.
	prefixItems       []*node
	prefixKw          string // "prefixItems", or "items" in its array form
	items             *node  // every item after prefixItems
	itemsKw           string // "items", or "additionalItems" after the array form
	minItems          int
	maxItems          int
	uniqueItems       bool
	contains          *node
	minContains       int // 1 when absent
	maxContains       int
	unevaluatedItems  *node
	containsAnnotates bool // contains marks its matches evaluated (2020-12)

	// Objects.
	properties            map[string]*node
	propertyOrder         []string
	patternProperties     []patternNode
	additionalProperties  *node
	required              []string
	propertyNames         *node
	minProperties         int
	maxProperties         int
	dependentRequired     map[string][]string
	dependentSchemas      map[string]*node
	dependentKw           map[string]string // "dependentSchemas" or "dependencies", by name
	unevaluatedProperties *node

	// In-place applicators.
	allOf, anyOf, oneOf      []*node
	anyOfTitles, oneOfTitles []string
	not                      *node
	ifNode, then, elseN      *node
	ref                      *node
	dynamicRef               *dynamicRef
}

// patternNode is one entry of patternProperties.
type patternNode struct {
	re  *pattern
	sch *node
}

// dynamicRef is a "$dynamicRef" (or 2019-09's "$recursiveRef", whose
// anchor is "" and which looks for "$recursiveAnchor": true).
type dynamicRef struct {
	static    *node  // the schema it resolves to statically
	anchor    string // the dynamic anchor to look for in the dynamic scope; dynamic false: none
	dynamic   bool
	recursive bool
}

// pattern is an ECMA-262 regular expression with its source, for messages.
type pattern struct {
	src string
	re  *regex.Regexp
	at  string // the schema location of the keyword
}

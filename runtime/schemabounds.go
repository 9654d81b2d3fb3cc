package runtime

import (
	"fmt"
	"regexp"
)

// Bounds on a schema the host compiles. A server chooses its schemas, and
// qri-io/jsonschema holds every keyword of a compiled schema as objects and
// compiles every "pattern" at once: a 10 MB schema with 200,000 patterns
// took 17.9 s and 2.9 GB. Past any of these bounds compilation fails at
// once, before anything is built, and the tool is unavailable with the
// reason.
const (
	// MaxSchemaBytes bounds a schema's JSON text.
	MaxSchemaBytes = 1 << 20
	// MaxSchemaMembers bounds the members of all the objects of a schema
	// (keywords, property names, $defs entries), the count that the
	// compiled schema's size follows.
	MaxSchemaMembers = 50_000
	// MaxSchemaPatterns bounds the regular expressions of a schema
	// ("pattern" values and "patternProperties" names)...
	MaxSchemaPatterns = 1_000
	// MaxSchemaPatternBytes bounds their text, all together: Go's regexp
	// compiles in time and memory linear in it.
	MaxSchemaPatternBytes = 64 << 10
)

// schemaSize is what checkSchemaBounds counts of a schema document.
type schemaSize struct {
	members, patterns, patternBytes int
}

// checkSchemaBounds walks doc (a schema as decoded from JSON) and fails
// when it passes MaxSchemaMembers, MaxSchemaPatterns or
// MaxSchemaPatternBytes. Like dropUnsupportedPatterns it is blind to which objects are
// schemas: every "pattern" string and every "patternProperties" name
// counts.
func checkSchemaBounds(doc any) error {
	var n schemaSize
	if err := n.walk(doc); err != nil {
		return err
	}
	return nil
}

func (n *schemaSize) walk(v any) error {
	switch t := v.(type) {
	case map[string]any:
		n.members += len(t)
		if n.members > MaxSchemaMembers {
			return fmt.Errorf("schema has more than %d object members (keywords and names)", MaxSchemaMembers)
		}
		if p, ok := t["pattern"].(string); ok {
			if err := n.pattern(p); err != nil {
				return err
			}
		}
		if pp, ok := t["patternProperties"].(map[string]any); ok {
			for p := range pp {
				if err := n.pattern(p); err != nil {
					return err
				}
			}
		}
		for _, child := range t {
			if err := n.walk(child); err != nil {
				return err
			}
		}
	case []any:
		for _, child := range t {
			if err := n.walk(child); err != nil {
				return err
			}
		}
	}
	return nil
}

func (n *schemaSize) pattern(p string) error {
	n.patterns++
	n.patternBytes += len(p)
	switch {
	case n.patterns > MaxSchemaPatterns:
		return fmt.Errorf("schema has more than %d patterns", MaxSchemaPatterns)
	case n.patternBytes > MaxSchemaPatternBytes:
		return fmt.Errorf("schema's patterns are longer than %d bytes in all", MaxSchemaPatternBytes)
	}
	return nil
}

// dropUnsupportedPatterns removes, at any depth, each "pattern" that Go's
// regexp (RE2) cannot compile, and each such name of "patternProperties"
// (with its sibling "additionalProperties", which would otherwise refuse
// the properties that name covered). JSON Schema patterns are ECMA-262
// regular expressions; lookarounds and backreferences, which RE2 lacks,
// are common in real schemas (zod writes its e-mail check with them). The
// dropped parts accept anything, as a remote reference does; warnings say
// which.
func dropUnsupportedPatterns(v any, path string, warnings *[]string) {
	switch t := v.(type) {
	case map[string]any:
		if p, ok := t["pattern"].(string); ok {
			if _, err := regexp.Compile(p); err != nil {
				delete(t, "pattern")
				*warnings = append(*warnings, fmt.Sprintf("%s/pattern: %q is not supported (%v); that pattern is not checked", path, p, err))
			}
		}
		if pp, ok := t["patternProperties"].(map[string]any); ok {
			for p := range pp {
				if _, err := regexp.Compile(p); err != nil {
					delete(pp, p)
					*warnings = append(*warnings, fmt.Sprintf("%s/patternProperties: %q is not supported (%v); the properties it names are not checked", path, p, err))
					if _, ok := t["additionalProperties"]; ok {
						delete(t, "additionalProperties")
						*warnings = append(*warnings, fmt.Sprintf("%s/additionalProperties: not checked, as a pattern beside it is not supported", path))
					}
				}
			}
		}
		for k, child := range t {
			dropUnsupportedPatterns(child, path+"/"+escapePointer(k), warnings)
		}
	case []any:
		for i, child := range t {
			dropUnsupportedPatterns(child, fmt.Sprintf("%s/%d", path, i), warnings)
		}
	}
}

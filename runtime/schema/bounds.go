package schema

import "fmt"

// Bounds on a schema the host compiles. A server chooses its schemas, and
// a compiled schema holds every keyword as an object and every
// pattern compiled (with qri-io/jsonschema, a 10 MB schema with 200,000
// patterns took 17.9 s and 2.9 GB). Past any of these bounds compilation fails at
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
	// MaxSchemaPatternBytes bounds their text, all together: their compiled
	// programs grow with it.
	MaxSchemaPatternBytes = 64 << 10
)

// schemaSize is what checkBounds counts of a schema document.
type schemaSize struct {
	members, patterns, patternBytes int
}

// checkBounds walks doc (a schema as decoded from JSON) and fails
// when it passes MaxSchemaMembers, MaxSchemaPatterns or
// MaxSchemaPatternBytes. It is blind to which objects are
// schemas: every "pattern" string and every "patternProperties" name
// counts.
func checkBounds(doc any) error {
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

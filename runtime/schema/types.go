package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// anyType reads "type", "enum" and "const".
func (b *builder) anyType() error {
	switch t := b.m["type"].(type) {
	case nil:
	case string:
		bit, ok := typeBits[t]
		if !ok {
			return fmt.Errorf("%s: unknown type %q", b.at("type"), t)
		}
		b.n.types = bit
	case []any:
		for _, e := range t {
			name, _ := e.(string)
			bit, ok := typeBits[name]
			if !ok {
				return fmt.Errorf("%s: unknown type %v", b.at("type"), e)
			}
			b.n.types |= bit
		}
		if b.n.types == 0 {
			b.n.types = 0xff // "type": [] is not a valid schema; read it as no constraint
		}
	default:
		return fmt.Errorf("%s: must be a string or an array of strings", b.at("type"))
	}
	if c, ok := b.m["const"]; ok {
		b.n.hasConst, b.n.constVal = true, c
	}
	if e, ok := b.m["enum"]; ok {
		arr, ok := e.([]any)
		if !ok {
			return fmt.Errorf("%s: must be an array", b.at("enum"))
		}
		b.n.enum, b.n.hasEnum = arr, true
	}
	return nil
}

// hasType reports whether v is of a type in t.
func hasType(t typeSet, v any) bool {
	switch x := v.(type) {
	case nil:
		return t&tNull != 0
	case bool:
		return t&tBoolean != 0
	case string:
		return t&tString != 0
	case json.Number:
		return t&tNumber != 0 || t&tInteger != 0 && isIntegerLiteral(x)
	case float64:
		return t&tNumber != 0 || t&tInteger != 0 && x == float64(int64(x))
	case []any:
		return t&tArray != 0
	case map[string]any:
		return t&tObject != 0
	}
	return false
}

func (t typeSet) String() string {
	var names []string
	for name, bit := range typeBits {
		if t&bit != 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return strings.Join(names, " or ")
}

// anyType checks "type", "enum" and "const".
func (s *state) anyType(n *node, v any, p *ipath) bool {
	ok := true
	if n.types != 0 && !hasType(n.types, v) {
		ok = s.fail(p, "type", fmt.Sprintf("must be %s, not %s", n.types, typeName(v)))
		if !s.collect {
			return false
		}
	}
	if n.hasConst && !s.equal(n.constVal, v, p, "const") {
		ok = s.fail(p, "const", "must be "+short(n.constVal))
		if !s.collect {
			return false
		}
	}
	if n.hasEnum {
		found := false
		for _, e := range n.enum {
			if s.equal(e, v, p, "enum") {
				found = true
				break
			}
		}
		if !found {
			ok = s.fail(p, "enum", "must be one of "+short(n.enum))
		}
	}
	return ok
}

// short is v as JSON, cut to a length a message can carry.
func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

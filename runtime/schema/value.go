package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Decode reads one JSON value as the validator sees it: objects as
// map[string]any, arrays as []any, numbers as json.Number holding their
// literal text (so 1e309 and 2^64 stay exact and valid), strings, bools and
// nil. Anything after the value, but white space, is an error.
func Decode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("not JSON: text after the value")
	}
	return v, nil
}

// equal is JSON equality: numbers by value, objects regardless of member
// order.
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && numbersEqual(x, y)
	case float64: // values decoded without UseNumber
		y, ok := b.(float64)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// canonicalKey writes v in one text per JSON value (numbers by value,
// members sorted), so that uniqueItems can hash long arrays.
func canonicalKey(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("n")
	case bool:
		if x {
			b.WriteString("t")
		} else {
			b.WriteString("f")
		}
	case string:
		b.WriteString("s")
		b.WriteString(fmt.Sprintf("%q", x))
	case json.Number:
		d, _ := parseDecimal(string(x))
		b.WriteString("#")
		b.WriteString(d.canonical())
	case float64:
		fmt.Fprintf(b, "#%v", x)
	case []any:
		b.WriteString("[")
		for _, e := range x {
			canonicalKey(b, e)
			b.WriteString(",")
		}
		b.WriteString("]")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for _, k := range keys {
			fmt.Fprintf(b, "%q:", k)
			canonicalKey(b, x[k])
			b.WriteString(",")
		}
		b.WriteString("}")
	}
}

// typeName is the JSON type of v, as "type" names it ("integer" for a
// number with no fractional part).
func typeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if isIntegerLiteral(x) {
			return "integer"
		}
		return "number"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

package schema

import (
	"fmt"

	"github.com/gnosis/gnosis/runtime/schema/regex"
)

// newPattern compiles the pattern of a keyword at schema location at: an
// ECMA-262 regular expression with the u flag, as format "regex" checks
// it, or the schema is unusable with the reason (package regex).
func (b *builder) newPattern(src, at string) (*pattern, error) {
	re, ok := b.c.patterns[src]
	if !ok {
		var err error
		if re, err = regex.Compile(src); err != nil {
			return nil, fmt.Errorf("%s: %q is not an ECMA-262 regular expression (with the u flag, as JSON Schema asks): %w", at, src, err)
		}
		b.c.patterns[src] = re
	}
	return &pattern{src: src, re: re, at: at}, nil
}

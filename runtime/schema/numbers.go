package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// numbers reads minimum, maximum, exclusiveMinimum, exclusiveMaximum and
// multipleOf, exactly as written (no float64 rounding).
func (b *builder) numbers() error {
	var err error
	n := b.n
	if n.minimum, err = b.number("minimum"); err != nil {
		return err
	}
	if n.maximum, err = b.number("maximum"); err != nil {
		return err
	}
	// Draft-04's boolean exclusiveMinimum/exclusiveMaximum qualify
	// minimum/maximum.
	if x, ok := b.m["exclusiveMinimum"].(bool); ok {
		if x {
			n.exclusiveMinimum, n.minimum = n.minimum, nil
		}
	} else if n.exclusiveMinimum, err = b.number("exclusiveMinimum"); err != nil {
		return err
	}
	if x, ok := b.m["exclusiveMaximum"].(bool); ok {
		if x {
			n.exclusiveMaximum, n.maximum = n.maximum, nil
		}
	} else if n.exclusiveMaximum, err = b.number("exclusiveMaximum"); err != nil {
		return err
	}
	if m, err := b.number("multipleOf"); err != nil {
		return err
	} else if m != nil {
		if m.dec.neg || m.dec.isZero() {
			return fmt.Errorf("%s: must be greater than 0", b.at("multipleOf"))
		}
		n.multipleOf = &m.dec
	}
	return nil
}

// numbers checks the number keywords against a number instance.
func (s *state) numbers(n *node, v any, p *ipath) bool {
	if n.minimum == nil && n.maximum == nil && n.exclusiveMinimum == nil && n.exclusiveMaximum == nil && n.multipleOf == nil {
		return true
	}
	var num json.Number
	switch x := v.(type) {
	case json.Number:
		num = x
	case float64:
		num = json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	default:
		return true
	}
	ok := true
	check := func(b *bound, pass func(int) bool, kw, rel string) {
		if b == nil || (!ok && !s.collect) {
			return
		}
		if !pass(cmpNumber(num, *b)) {
			ok = s.fail(p, kw, fmt.Sprintf("must be %s %s", rel, b.text()))
		}
	}
	check(n.minimum, func(c int) bool { return c >= 0 }, "minimum", "at least")
	check(n.maximum, func(c int) bool { return c <= 0 }, "maximum", "at most")
	check(n.exclusiveMinimum, func(c int) bool { return c > 0 }, "exclusiveMinimum", "greater than")
	check(n.exclusiveMaximum, func(c int) bool { return c < 0 }, "exclusiveMaximum", "less than")
	if n.multipleOf != nil && (ok || s.collect) {
		d, _ := parseDecimal(string(num))
		if !d.multipleOf(*n.multipleOf) {
			ok = s.fail(p, "multipleOf", "must be a multiple of "+n.multipleOf.text())
		}
	}
	return ok
}

// text is a bound as a message shows it.
func (b bound) text() string {
	if b.isSmall {
		return strconv.FormatInt(b.small, 10)
	}
	return b.dec.text()
}

// text is d in plain or exponent notation.
func (d decimal) text() string {
	if d.isZero() {
		return "0"
	}
	sign := ""
	if d.neg {
		sign = "-"
	}
	switch {
	case d.exp >= 0 && d.exp <= 20:
		s := d.digits
		for range d.exp {
			s += "0"
		}
		return sign + s
	case d.exp < 0 && -d.exp < int64(len(d.digits)):
		k := len(d.digits) + int(d.exp)
		return sign + d.digits[:k] + "." + d.digits[k:]
	case d.exp < 0 && -d.exp <= 20:
		s := "0."
		for range -d.exp - int64(len(d.digits)) {
			s += "0"
		}
		return sign + s + d.digits
	}
	return sign + d.digits + "e" + strconv.FormatInt(d.exp, 10)
}

package schema

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
)

// decimal is a JSON number read exactly from its text: digits × 10^exp,
// with digits free of leading and trailing zeros ("" is zero, never
// negative). Comparing two decimals needs no arithmetic at all, and
// multipleOf needs integers no longer than the two literals, so a number
// such as 1e309 or 18446744073709551616 costs no more than 1.5.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// maxExp bounds a literal's exponent. A larger one (1e99999999999999999999
// is valid JSON) is read as this bound, which keeps every comparison with
// an ordinary number exact; two numbers both beyond it compare by their
// digits only.
const maxExp = 1 << 50

// parseDecimal reads a JSON number literal. ok is false when s is not one.
func parseDecimal(s string) (d decimal, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[start:i]
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return decimal{}, false
	}
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[fs:i]
		if frac == "" {
			return decimal{}, false
		}
	}
	var e int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		for i < len(s) && isDigit(s[i]) {
			if e < maxExp {
				e = e*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == es {
			return decimal{}, false
		}
		e = min(e, maxExp)
		if eneg {
			e = -e
		}
	}
	if i != len(s) {
		return decimal{}, false
	}
	digits := intPart
	if frac != "" {
		digits = intPart + frac
	}
	e -= int64(len(frac))
	digits = strings.TrimLeft(digits, "0")
	trimmed := strings.TrimRight(digits, "0")
	e += int64(len(digits) - len(trimmed))
	if trimmed == "" {
		return decimal{}, true
	}
	d.digits, d.exp = trimmed, e
	return d, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isZero reports whether d is 0.
func (d decimal) isZero() bool { return d.digits == "" }

// isInteger reports whether d has no fractional part.
func (d decimal) isInteger() bool { return d.digits == "" || d.exp >= 0 }

// cmp returns -1, 0 or +1 as d is less than, equal to or greater than o.
func (d decimal) cmp(o decimal) int {
	switch {
	case d.isZero() && o.isZero():
		return 0
	case d.isZero():
		return signOf(!o.neg) * -1
	case o.isZero():
		return signOf(!d.neg)
	case d.neg != o.neg:
		return signOf(!d.neg)
	}
	m := cmpMagnitude(d, o)
	if d.neg {
		return -m
	}
	return m
}

func signOf(positive bool) int {
	if positive {
		return 1
	}
	return -1
}

// cmpMagnitude compares |d| and |o|, both non-zero: first by the place of
// the leading digit, then digit by digit.
func cmpMagnitude(d, o decimal) int {
	ld, lo := int64(len(d.digits))+d.exp, int64(len(o.digits))+o.exp
	if ld != lo {
		if ld < lo {
			return -1
		}
		return 1
	}
	n := min(len(d.digits), len(o.digits))
	if c := strings.Compare(d.digits[:n], o.digits[:n]); c != 0 {
		return c
	}
	// The longer one has more non-zero digits below.
	switch {
	case len(d.digits) < len(o.digits):
		return -1
	case len(d.digits) > len(o.digits):
		return 1
	}
	return 0
}

// multipleOf reports whether d is an integer multiple of step (> 0).
// With d = a×10^p and step = b×10^q, d/step = (a/b)×10^(p-q): when p < q
// it is never an integer (a ends in a non-zero digit, so 10 does not divide
// it); otherwise b must divide a×10^(p-q), which modular exponentiation
// decides without building 10^(p-q).
func (d decimal) multipleOf(step decimal) bool {
	if d.isZero() {
		return true
	}
	k := d.exp - step.exp
	if k < 0 {
		return false
	}
	if len(d.digits) <= 18 && len(step.digits) <= 9 && k <= 9 {
		a, _ := strconv.ParseUint(d.digits, 10, 64)
		b, _ := strconv.ParseUint(step.digits, 10, 64)
		r := a % b
		for range k {
			r = r * 10 % b
		}
		return r == 0
	}
	a, _ := new(big.Int).SetString(d.digits, 10)
	b, _ := new(big.Int).SetString(step.digits, 10)
	r := new(big.Int).Exp(big.NewInt(10), big.NewInt(k), b)
	r.Mul(r, a)
	return r.Mod(r, b).Sign() == 0
}

// bound is a number a schema compares against (minimum, maximum, ...),
// with the int64 it equals when it is one, for the usual fast path.
type bound struct {
	dec     decimal
	small   int64
	isSmall bool
}

func newBound(d decimal) bound {
	b := bound{dec: d}
	if d.isInteger() && int64(len(d.digits))+d.exp <= 18 {
		s := d.digits + strings.Repeat("0", int(d.exp))
		n, err := strconv.ParseInt(s, 10, 64)
		if d.isZero() {
			n, err = 0, nil
		}
		if err == nil {
			if d.neg {
				n = -n
			}
			b.small, b.isSmall = n, true
		}
	}
	return b
}

// smallInt reads an integer literal of at most 18 digits without
// allocating; ok is false for anything else.
func smallInt(s string) (int64, bool) {
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	if len(s) == 0 || len(s) > 18 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int64(s[i]-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// cmpNumber compares the literal n with b.
func cmpNumber(n json.Number, b bound) int {
	if b.isSmall {
		if v, ok := smallInt(string(n)); ok {
			switch {
			case v < b.small:
				return -1
			case v > b.small:
				return 1
			}
			return 0
		}
	}
	d, _ := parseDecimal(string(n))
	return d.cmp(b.dec)
}

// isIntegerLiteral reports whether n's value is an integer (1.0 and 1e2
// are; 9007199254740990.99 is not).
func isIntegerLiteral(n json.Number) bool {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		return true
	}
	d, _ := parseDecimal(s)
	return d.isInteger()
}

// numbersEqual compares two literals by value (1 and 1.0 are equal).
func numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	da, _ := parseDecimal(string(a))
	db, _ := parseDecimal(string(b))
	return da.cmp(db) == 0
}

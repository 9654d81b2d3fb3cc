package schema

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/gnosis/gnosis/runtime/schema/regex"
)

// formatCheck is a format the validator asserts: its check, what a valid
// value is (for the message), and the first draft that defines it (0: all).
type formatCheck struct {
	valid func(string) bool
	want  string
	since draft
}

// formatChecks are the formats asserted, each checked exactly as its RFC
// defines it; any other format is an annotation only (docs/validation.md
// names them). "date-time" and "time" take leap seconds (RFC 3339 allows
// 23:59:60) and refuse offsets such as +24:00; "ipv4" refuses an
// IPv4-mapped IPv6 address; "email" is RFC 5322's addr-spec, RFC 5321's
// address literals included; "regex" is ECMA-262 with the u flag; "hostname" and "idn-hostname"
// follow IDNA 2008 for their A-labels and U-labels (hostname.go).
var formatChecks = map[string]formatCheck{
	"date-time":             {validDateTime, "an RFC 3339 date-time such as 2024-05-01T13:45:00Z", 0},
	"date":                  {validFullDate, "an RFC 3339 full-date such as 2024-05-01", 0},
	"time":                  {validFullTime, "an RFC 3339 full-time such as 13:45:00Z", 0},
	"duration":              {validDuration, "an ISO 8601 duration such as P3DT4H or PT30S", 0},
	"uuid":                  {uuidPattern.MatchString, "8-4-4-4-12 hexadecimal digits", 0},
	"email":                 {validEmail, "an e-mail address such as name@example.com", 0},
	"ipv4":                  {validIPv4, "an IPv4 address in dotted-quad form", 0},
	"ipv6":                  {validIPv6, "an IPv6 address", 0},
	"uri":                   {func(s string) bool { return validURIReference(s, true) }, "an absolute URI (RFC 3986)", 0},
	"uri-reference":         {func(s string) bool { return validURIReference(s, false) }, "a URI reference (RFC 3986)", 0},
	"iri":                   {func(s string) bool { return validIRIReference(s, true) }, "an absolute IRI (RFC 3987)", 0},
	"iri-reference":         {func(s string) bool { return validIRIReference(s, false) }, "an IRI reference (RFC 3987)", 0},
	"idn-email":             {validIDNEmail, "an internationalized e-mail address (RFC 6531) such as name@bücher.example", 0},
	"uri-template":          {validURITemplate, "a URI template (RFC 6570) such as /users/{id}{?fields*}", 0},
	"json-pointer":          {validJSONPointer, "a JSON pointer (RFC 6901) such as /a/0", 0},
	"relative-json-pointer": {validRelativeJSONPointer, "a relative JSON pointer such as 0/a or 1#", 0},
	"regex":                 {validRegex, "an ECMA-262 regular expression", 0},
	"hostname":              {validHostname, "a host name (RFC 1123, A-labels per IDNA 2008) such as example.com", 0},
	"idn-hostname":          {validIDNHostname, "an internationalized host name (IDNA 2008) such as bücher.example", 0},
}

// validJSONPointer is RFC 6901's json-pointer: "" or "/"-led tokens in
// which "~" is only "~0" or "~1".
func validJSONPointer(s string) bool {
	if s != "" && s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return false
		}
	}
	return true
}

// validRelativeJSONPointer is a non-negative integer (no leading zero),
// an optional index manipulation ("+" or "-" and a non-negative integer,
// so "-0" too), then "#" or a JSON pointer.
func validRelativeJSONPointer(s string) bool {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == 0 || (i > 1 && s[0] == '0') {
		return false
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == i+1 || (j > i+2 && s[i+1] == '0') {
			return false
		}
		i = j
	}
	rest := s[i:]
	return rest == "#" || validJSONPointer(rest)
}

// validRegex is an ECMA-262 regular expression with the "u" flag, the
// grammar pattern and patternProperties are compiled with (package regex).
func validRegex(s string) bool { return regex.Valid(s) }

var (
	uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	// durationPattern is RFC 3339 appendix A's "duration": "P", then weeks
	// alone, or date parts and/or a time part, each part only followed by
	// the next smaller one (years, then months, then days; hours, minutes,
	// seconds).
	durationPattern = regexp.MustCompile(`^P(?:\d+W|(?:\d+Y(?:\d+M(?:\d+D)?)?|\d+M(?:\d+D)?|\d+D)(?:T` + durTime + `)?|T` + durTime + `)$`)
)

const durTime = `(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S)`

func validDuration(s string) bool { return durationPattern.MatchString(s) }

// validIPv4 accepts the dotted quad only: four decimal parts, no leading
// zeros, nothing around it.
func validIPv4(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4()
}

// validIPv6 accepts RFC 4291's text forms, without a zone or brackets.
func validIPv6(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6() && a.Zone() == ""
}

// validEmail accepts RFC 5322's addr-spec: a dot-atom or a quoted string,
// "@", then a host name or an address literal ([192.0.2.1],
// [IPv6:2001:db8::1]). Display names, comments and lists are not
// addresses.
func validEmail(s string) bool { return validMailbox(s, false) }

// validIDNEmail is RFC 6531's addr-spec: as validEmail, with UTF-8 beyond
// ASCII in the local part and an internationalized host name.
func validIDNEmail(s string) bool { return validMailbox(s, true) }

func validMailbox(s string, idn bool) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if !validLocalPart(local, idn) {
		return false
	}
	if lit, ok := strings.CutPrefix(domain, "["); ok {
		lit, ok = strings.CutSuffix(lit, "]")
		return ok && validAddressLiteral(lit)
	}
	if idn {
		// RFC 6531 compares domains after normalisation; the suite takes
		// a label not in NFC as valid.
		return validIDNHostname(norm.NFC.String(domain))
	}
	return validHostname(domain)
}

// validAddressLiteral is RFC 5321's address-literal between the
// brackets: an IPv4 address whose parts (Snum) are one to three digits
// worth 0 to 255, leading zeros allowed ([01.2.3.4]), or "IPv6:" (an ABNF
// literal, so in any case: [ipv6:::1]) and an IPv6 address, whose last
// 32 bits may be such an IPv4 address.
func validAddressLiteral(lit string) bool {
	if len(lit) > 5 && strings.EqualFold(lit[:5], "IPv6:") {
		v6 := lit[5:]
		if i := strings.LastIndexByte(v6, ':'); i >= 0 && strings.Contains(v6[i:], ".") {
			v4, ok := snumQuad(v6[i+1:])
			if !ok {
				return false
			}
			v6 = v6[:i+1] + v4
		}
		return validIPv6(v6)
	}
	_, ok := snumQuad(lit)
	return ok
}

// snumQuad reads RFC 5321's IPv4-address-literal and returns it without
// leading zeros.
func snumQuad(s string) (string, bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return "", false
	}
	out := make([]string, 4)
	for i, p := range parts {
		if len(p) == 0 || len(p) > 3 {
			return "", false
		}
		v := 0
		for j := 0; j < len(p); j++ {
			if !isDigit(p[j]) {
				return "", false
			}
			v = v*10 + int(p[j]-'0')
		}
		if v > 255 {
			return "", false
		}
		out[i] = strconv.Itoa(v)
	}
	return strings.Join(out, "."), true
}

// validLocalPart is a dot-atom or a quoted string; with idn, any
// non-ASCII character counts as atext and qtext (RFC 6532).
func validLocalPart(s string, idn bool) bool {
	if q, ok := strings.CutPrefix(s, `"`); ok {
		q, ok = strings.CutSuffix(q, `"`)
		if !ok {
			return false
		}
		for i := 0; i < len(q); i++ {
			c := q[i]
			switch {
			case c >= 0x80 && idn:
			case c == '\\' && i+1 < len(q):
				i++
			case c == '"' || c == '\\' || c < 0x20 || c >= 0x7f:
				return false
			}
		}
		return true
	}
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAtext(s[i]) && s[i] != '.' && !(idn && s[i] >= 0x80) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// isAtext is RFC 5322's atext (ASCII only).
func isAtext(c byte) bool {
	return isAlnum(c) || strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

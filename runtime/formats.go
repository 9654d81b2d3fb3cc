package runtime

import (
	"context"
	"net/netip"
	"regexp"
	"strings"

	jptr "github.com/qri-io/jsonpointer"
	"github.com/qri-io/jsonschema"
)

// format is "format", asserted. It checks "date-time", "date", "time",
// "duration", "uuid", "email", "ipv4", "ipv6", "uri" and "uri-reference"
// itself, and hands the other formats to qri-io/jsonschema v0.2.1
// (keywords_optional.go), whose checks of these were wrong: "date-time" and
// "time" went through time.Parse, which refuses leap seconds (RFC 3339
// allows 23:59:60 UTC) and accepts offsets such as +24:00; "ipv4" took an
// IPv4-mapped IPv6 address; "email" took a whole "From" header and refused
// an IPv6 address literal; "uri" was net/url's lenient parse; "uuid" and
// "duration" were not checked at all.
type format string

func newFormat() jsonschema.Keyword { return new(format) }

// Register implements jsonschema.Keyword.
func (f *format) Register(string, *jsonschema.SchemaRegistry) {}

// Resolve implements jsonschema.Keyword.
func (f *format) Resolve(jptr.Pointer, string) *jsonschema.Schema { return nil }

// formatChecks are the formats this host checks itself, each with what a
// valid value is, for the violation's message.
var formatChecks = map[string]struct {
	valid func(string) bool
	want  string
}{
	"date-time":     {validDateTime, "an RFC 3339 date-time such as 2024-05-01T13:45:00Z"},
	"date":          {validFullDate, "an RFC 3339 full-date such as 2024-05-01"},
	"time":          {validFullTime, "an RFC 3339 full-time such as 13:45:00Z"},
	"duration":      {validDuration, "an ISO 8601 duration such as P3DT4H or PT30S"},
	"uuid":          {uuidPattern.MatchString, "8-4-4-4-12 hexadecimal digits"},
	"email":         {validEmail, "an e-mail address such as name@example.com"},
	"ipv4":          {validIPv4, "an IPv4 address in dotted-quad form"},
	"ipv6":          {validIPv6, "an IPv6 address"},
	"uri":           {func(s string) bool { return validURIReference(s, true) }, "an absolute URI (RFC 3986)"},
	"uri-reference": {func(s string) bool { return validURIReference(s, false) }, "a URI reference (RFC 3986)"},
}

// ValidateKeyword implements jsonschema.Keyword.
func (f *format) ValidateKeyword(ctx context.Context, state *jsonschema.ValidationState, data any) {
	s, ok := data.(string)
	if !ok {
		return
	}
	c, ok := formatChecks[string(*f)]
	if !ok {
		jsonschema.Format(*f).ValidateKeyword(ctx, state, data)
		return
	}
	if !c.valid(s) {
		state.AddError(data, "invalid "+string(*f)+": must be "+c.want)
	}
}

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
func validEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if !validLocalPart(local) {
		return false
	}
	if lit, ok := strings.CutPrefix(domain, "["); ok {
		lit, ok = strings.CutSuffix(lit, "]")
		if !ok {
			return false
		}
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			return validIPv6(v6)
		}
		return validIPv4(lit)
	}
	return validHostname(domain)
}

func validLocalPart(s string) bool {
	if q, ok := strings.CutPrefix(s, `"`); ok {
		q, ok = strings.CutSuffix(q, `"`)
		if !ok {
			return false
		}
		for i := 0; i < len(q); i++ {
			c := q[i]
			switch {
			case c == '\\' && i+1 < len(q):
				i++
			case c == '"' || c == '\\' || c < 0x20 || c == 0x7f:
				return false
			}
		}
		return true
	}
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAtext(s[i]) && s[i] != '.' {
			return false
		}
	}
	return true
}

// isAtext is RFC 5322's atext (ASCII only).
func isAtext(c byte) bool {
	return isAlnum(c) || strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// validHostname is RFC 1123's host name: dot-separated labels of letters,
// digits and inner hyphens, each at most 63 bytes, 253 in all.
func validHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if !isAlnum(label[i]) && label[i] != '-' {
				return false
			}
		}
	}
	return true
}

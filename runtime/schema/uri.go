package schema

import (
	"net/netip"
	"strings"
)

// validURIReference checks s against RFC 3986's URI-reference (with
// absolute, its URI: a scheme is then required). It checks the syntax only:
// which characters go where, percent-encodings, the authority's parts.
func validURIReference(s string, absolute bool) bool { return refChars{}.valid(s, absolute) }

// validIRIReference is RFC 3987's IRI-reference (with absolute, its IRI):
// a URI reference that may also hold the non-ASCII characters "ucschar"
// names, and in its query those of "iprivate".
func validIRIReference(s string, absolute bool) bool { return refChars{iri: true}.valid(s, absolute) }

// refChars says which characters a reference may hold beyond ASCII.
type refChars struct{ iri bool }

// in reports whether every character of s is in set, or, for an IRI, a
// ucschar (or, in a query, an iprivate).
func (r refChars) in(s, set string, query bool) bool {
	for _, c := range s {
		switch {
		case c < 0x80:
			if strings.IndexByte(set, byte(c)) < 0 {
				return false
			}
		case !r.iri || !(isUCSChar(c) || query && isIPrivate(c)):
			return false
		}
	}
	return true
}

func isUCSChar(c rune) bool {
	switch {
	case c >= 0xA0 && c <= 0xD7FF, c >= 0xF900 && c <= 0xFDCF, c >= 0xFDF0 && c <= 0xFFEF:
		return true
	case c >= 0x10000 && c <= 0xEFFFD:
		return c&0xFFFF <= 0xFFFD && (c < 0xE0000 || c >= 0xE1000)
	}
	return false
}

func isIPrivate(c rune) bool {
	return c >= 0xE000 && c <= 0xF8FF || c >= 0xF0000 && c <= 0xFFFFD || c >= 0x100000 && c <= 0x10FFFD
}

func (r refChars) valid(s string, absolute bool) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		}
	}
	rest, fragment, hasFragment := strings.Cut(s, "#")
	if hasFragment && !r.in(fragment, pcharSet+"/?", false) {
		return false
	}
	rest, query, hasQuery := strings.Cut(rest, "?")
	if hasQuery && !r.in(query, pcharSet+"/?", true) {
		return false
	}
	scheme, path, hasScheme := strings.Cut(rest, ":")
	if !hasScheme || !validScheme(scheme) {
		if absolute {
			return false
		}
		path = rest
		// A relative path's first segment cannot hold a colon: it would
		// read as a scheme.
		if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ":") {
			return false
		}
	}
	if after, ok := strings.CutPrefix(path, "//"); ok {
		authority, p, _ := strings.Cut(after, "/")
		if !r.validAuthority(authority) {
			return false
		}
		path = p
	}
	return r.in(path, pcharSet+"/", false)
}

func validScheme(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	return allIn(s, alnumSet+"+-.")
}

// validAuthority is [userinfo "@"] host [":" port].
func (r refChars) validAuthority(a string) bool {
	if user, host, ok := strings.Cut(a, "@"); ok {
		if !r.in(user, unreservedSet+subDelimSet+"%:", false) {
			return false
		}
		a = host
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 || !validIPLiteral(a[1:end]) {
			return false
		}
		host, port = "", a[end+1:]
		if port != "" {
			p, ok := strings.CutPrefix(port, ":")
			if !ok {
				return false
			}
			port = p
		}
	} else if i := strings.LastIndexByte(a, ':'); i >= 0 {
		host, port = a[:i], a[i+1:]
	}
	return r.in(host, unreservedSet+subDelimSet+"%", false) && allIn(port, "0123456789")
}

// validIPLiteral is an IPv6 address or an IPvFuture ("v1.x").
func validIPLiteral(s string) bool {
	if len(s) > 1 && (s[0] == 'v' || s[0] == 'V') {
		ver, rest, ok := strings.Cut(s[1:], ".")
		return ok && ver != "" && allIn(ver, "0123456789abcdefABCDEF") && rest != "" && allIn(rest, unreservedSet+subDelimSet+":")
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6() && a.Zone() == ""
}

const (
	alnumSet      = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	unreservedSet = alnumSet + "-._~"
	subDelimSet   = "!$&'()*+,;="
	// pcharSet is a path segment's characters; "%" stands for a
	// percent-encoding, checked separately.
	pcharSet = unreservedSet + subDelimSet + "%:@"
)

func allIn(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

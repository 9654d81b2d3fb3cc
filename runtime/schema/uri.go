package schema

import (
	"net/netip"
	"strings"
)

// validURIReference checks s against RFC 3986's URI-reference (with
// absolute, its URI: a scheme is then required). It checks the syntax only:
// which characters go where, percent-encodings, the authority's parts.
func validURIReference(s string, absolute bool) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		}
	}
	rest, fragment, hasFragment := strings.Cut(s, "#")
	if hasFragment && !allIn(fragment, pcharSet+"/?") {
		return false
	}
	rest, query, hasQuery := strings.Cut(rest, "?")
	if hasQuery && !allIn(query, pcharSet+"/?") {
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
		if !validAuthority(authority) {
			return false
		}
		path = p
	}
	return allIn(path, pcharSet+"/")
}

func validScheme(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	return allIn(s, alnumSet+"+-.")
}

// validAuthority is [userinfo "@"] host [":" port].
func validAuthority(a string) bool {
	if user, host, ok := strings.Cut(a, "@"); ok {
		if !allIn(user, unreservedSet+subDelimSet+"%:") {
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
	return allIn(host, unreservedSet+subDelimSet+"%") && allIn(port, "0123456789")
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

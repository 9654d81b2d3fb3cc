package runtime

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// errOrigin is wrapped by every NormalizeOrigin failure.
var errOrigin = errors.New("not a web origin")

// NormalizeOrigin returns the canonical form of a web page origin:
// "http" or "https", "://", the host in lower case, ":port" only when it is
// not the scheme's default, and nothing after it. Policy keys and request
// origins go through it alike, so a key written "HTTPS://Chat.Example.com/"
// judges requests from "https://chat.example.com".
//
// Anything else (a path, a query, user info, another scheme, no host) is an
// error: a policy key that cannot be normalised would silently never match.
func NormalizeOrigin(s string) (string, error) {
	return normalize(s, false)
}

// NormalizeOriginKey is NormalizeOrigin for policy keys, which may also be
// globs over origins ("https://*.example.com"): '*' is allowed in the host.
func NormalizeOriginKey(s string) (string, error) {
	return normalize(s, true)
}

func normalize(s string, glob bool) (string, error) {
	fail := func(why string) (string, error) { return "", fmt.Errorf("%w: %q %s", errOrigin, s, why) }
	scheme, rest, ok := strings.Cut(strings.TrimSpace(s), "://")
	if !ok {
		return fail("has no scheme://")
	}
	scheme = strings.ToLower(scheme)
	if scheme != "http" && scheme != "https" {
		return fail("is not http or https")
	}
	rest = strings.TrimSuffix(rest, "/")
	if strings.ContainsAny(rest, "/?#@\\ \t\r\n") {
		return fail("has more than scheme, host and port")
	}
	if !glob && strings.Contains(rest, "*") {
		return fail("has a '*' (globs are for policy keys only)")
	}
	probe := strings.ReplaceAll(rest, "*", "x")
	u, err := url.Parse(scheme + "://" + probe)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return fail("has no valid host")
	}
	host := strings.ToLower(rest)
	port := u.Port()
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fail("has an invalid port")
		}
	}
	if !validHost(strings.ToLower(u.Hostname())) {
		return fail("has an invalid host (browsers send hosts in ASCII: letters, digits, '-', '.')")
	}
	if port != "" {
		host = strings.TrimSuffix(host, ":"+port)
		if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
			port = ""
		}
	} else if strings.HasSuffix(host, ":") {
		host = strings.TrimSuffix(host, ":")
	}
	out := scheme + "://" + host
	if port != "" {
		out += ":" + port
	}
	return out, nil
}

// validHost accepts what a browser puts in an origin: a DNS name in ASCII
// (IDNs arrive punycoded), an IPv4 address or an IPv6 address. Globs were
// probed with '*' replaced by 'x'.
func validHost(h string) bool {
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	for _, c := range h {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_'
		if !ok {
			return false
		}
	}
	return h != ""
}

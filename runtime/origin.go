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
	if extensionSchemes[scheme] {
		return extensionOrigin(scheme, rest, glob, fail)
	}
	if scheme != "http" && scheme != "https" {
		return fail("is not http, https or a browser extension's")
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

// extensionSchemes are the schemes of a browser extension's own origin. The
// extension's browser agent makes calls of its own (its desktop actions),
// which are judged under the extension's origin, a policy key like a site's.
var extensionSchemes = map[string]bool{"chrome-extension": true, "moz-extension": true}

// extensionOrigin normalises "chrome-extension://<id>" (Chromium's 32
// letters a-p) or "moz-extension://<uuid>": the id in lower case, nothing
// after it. No glob: an extension's grants are its own.
func extensionOrigin(scheme, rest string, glob bool, fail func(string) (string, error)) (string, error) {
	id := strings.ToLower(strings.TrimSuffix(rest, "/"))
	if strings.Contains(id, "*") {
		return fail("has a '*' (an extension's origin is never a glob)")
	}
	if id == "" || len(id) > 64 {
		return fail("has no valid extension id")
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return fail("has more than an extension id")
		}
	}
	return scheme + "://" + id, nil
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

package relay

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/gnosis/gnosis/host/config"
)

// Config is the "relay" section of the host configuration, as config.Load
// decodes it.
type Config = config.Relay

// base is one parsed allow-list entry.
type base struct {
	scheme, host, path string // host includes the port, always explicit
}

// policy decides which URLs the relay may request.
type policy struct {
	bases []base
}

func newPolicy(allow []string) (policy, error) {
	var p policy
	for _, a := range allow {
		u, err := url.Parse(a)
		if err != nil {
			return policy{}, fmt.Errorf("relay.allow entry %q is not a URL: %w", a, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return policy{}, fmt.Errorf("relay.allow entry %q must be an http(s) base URL without credentials, query or fragment", a)
		}
		if dotted(u) {
			return policy{}, fmt.Errorf("relay.allow entry %q has '.' or '..' segments", a)
		}
		p.bases = append(p.bases, base{u.Scheme, hostPort(u), strings.TrimSuffix(u.EscapedPath(), "/")})
	}
	return p, nil
}

// check returns why u may not be requested, or "" when it may.
func (p policy) check(u *url.URL) string {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "only http and https URLs can be relayed"
	case u.Host == "" || u.Hostname() == "":
		return "the URL has no host"
	case u.User != nil:
		return "URLs with credentials cannot be relayed"
	case dotted(u):
		return "the URL path has '.' or '..' segments"
	}
	path := u.EscapedPath()
	if len(p.bases) == 0 {
		trimmed := strings.TrimSuffix(path, "/")
		if strings.HasSuffix(trimmed, "/chat/completions") || strings.HasSuffix(trimmed, "/models") {
			return ""
		}
		return "without relay.allow in the host configuration only .../chat/completions and .../models URLs can be relayed"
	}
	for _, b := range p.bases {
		if u.Scheme == b.scheme && hostPort(u) == b.host &&
			(path == b.path || b.path == "" || strings.HasPrefix(path, b.path+"/")) {
			return ""
		}
	}
	return "the URL is not under any base URL in relay.allow of the host configuration"
}

// lists reports whether the origin "host:port" (as the HTTP transport
// dials it) is one of relay.allow's: only those may be on private networks.
func (p policy) lists(addr string) bool {
	for _, b := range p.bases {
		if strings.EqualFold(b.host, addr) {
			return true
		}
	}
	return false
}

// dotted reports "." or ".." path segments, percent-encoded or not, which
// would let a URL pass a prefix check and then leave the base.
func dotted(u *url.URL) bool {
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		s := strings.ToLower(strings.ReplaceAll(strings.ToLower(seg), "%2e", "."))
		if s == "." || s == ".." {
			return true
		}
	}
	return strings.Contains(strings.ToLower(u.EscapedPath()), "%2f") || strings.Contains(u.EscapedPath(), `\`) ||
		strings.Contains(strings.ToLower(u.EscapedPath()), "%5c")
}

func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

package relay

import (
	"net/url"
	"path"
	"strings"
	"testing"
)

// FuzzPolicy checks, for any URL text a page or model could produce, that
// what the policy lets through stays under the allowed base once the
// upstream server resolves its path.
func FuzzPolicy(f *testing.F) {
	for _, s := range []string{
		"http://127.0.0.1:11434/v1/chat/completions", "http://127.0.0.1:11434/v1/../admin", "http://127.0.0.1:11434/v1/%2e%2E/x",
		"http://127.0.0.1:11434/v10", "http://127.0.0.1:11434@evil.test/v1", "HTTP://127.0.0.1:11434/v1", "http://[::1]:11434/v1",
		"http://127.0.0.1:11434/v1/a%2f..%2fb", "http://127.0.0.1:11434/v1\\..\\x", "//127.0.0.1:11434/v1",
	} {
		f.Add(s)
	}
	p, err := newPolicy([]string{"http://127.0.0.1:11434/v1"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := url.Parse(s)
		if err != nil || p.check(u) != "" {
			return
		}
		if u.Scheme != "http" || hostPort(u) != "127.0.0.1:11434" || u.User != nil {
			t.Fatalf("%q allowed with scheme %q host %q", s, u.Scheme, hostPort(u))
		}
		unescaped, err := url.PathUnescape(u.EscapedPath())
		if err != nil {
			t.Fatalf("%q allowed with an undecodable path", s)
		}
		clean := path.Clean("/" + unescaped)
		if clean != "/v1" && !strings.HasPrefix(clean, "/v1/") {
			t.Fatalf("%q allowed but resolves to %q", s, clean)
		}
	})
}

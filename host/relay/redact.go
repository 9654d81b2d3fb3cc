package relay

import (
	"net/http"
	"net/url"
	"strings"
)

// redact is the URL as logs and messages may show it: no query, no fragment,
// no credentials (a key is sometimes passed as ?key=...).
func redact(u *url.URL) string {
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return c.String()
}

// redactedValue stands in for a secret in debug logs.
const redactedValue = "[redacted]"

// debugURL is the URL for debug logs: the query's parameter names stay, every
// value is replaced, since any of them may be a key.
func debugURL(u *url.URL) string {
	s := redact(u)
	if u.RawQuery == "" {
		return s
	}
	var names []string
	for _, pair := range strings.Split(u.RawQuery, "&") {
		name, _, _ := strings.Cut(pair, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		names = append(names, url.QueryEscape(name)+"="+redactedValue)
	}
	return s + "?" + strings.Join(names, "&")
}

// secretWords, found in a header's name ("Authorization", "X-Api-Key",
// "Cookie"), mark its value as a credential.
var secretWords = []string{"auth", "key", "token", "secret", "password", "passwd", "cookie", "session", "signature", "credential", "bearer"}

// debugHeaders is a request's headers for debug logs, credential values
// replaced: the value of a header whose name says it holds one, and any
// value that looks like one whatever the name (credentialLike).
func debugHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for name, values := range h {
		v := strings.Join(values, ", ")
		if secretName(name) || credentialLike(v) {
			v = redactedValue
		}
		out[name] = v
	}
	return out
}

func secretName(name string) bool {
	lower := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// scrub removes u's query and fragment from an error text, in case a
// transport error quotes the URL it failed on.
func scrub(text string, u *url.URL) string {
	if u.RawQuery != "" {
		text = strings.ReplaceAll(text, "?"+u.RawQuery, "")
		text = strings.ReplaceAll(text, u.RawQuery, redactedValue)
	}
	if u.Fragment != "" {
		text = strings.ReplaceAll(text, "#"+u.EscapedFragment(), "")
	}
	return text
}

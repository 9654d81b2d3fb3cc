package redact

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
)

// form is one way a secret value may be written in text.
type form struct {
	text string
	// token: the form is the part of a base64 text that only the value's
	// bytes decide; a match masks the whole run of base64 characters
	// around it, whatever bytes the value sat between when encoded.
	token bool
}

// minBase64 is the shortest base64 form matched: shorter runs would occur
// by chance in other base64 text.
const minBase64 = 6

// forms is v as written; as JSON text quotes it; a bearer credential's
// token on its own (an Authorization header's value); percent-encoded (a
// query string, a URL's path); and base64-encoded, as the core of its
// encoding at each of the three offsets the value can start at within
// longer encoded data (a Basic credential "user:password", a config blob),
// in the standard and the URL alphabets.
func forms(v string) []form {
	var out []form
	seen := map[string]bool{}
	keep := func(f form) {
		if len(f.text) >= minValue && !seen[f.text] {
			seen[f.text] = true
			out = append(out, f)
		}
	}
	keep(form{text: v})
	if b, err := json.Marshal(v); err == nil {
		keep(form{text: string(b[1 : len(b)-1])})
	}
	for _, scheme := range []string{"bearer ", "basic ", "token "} {
		if len(v) > len(scheme) && strings.EqualFold(v[:len(scheme)], scheme) {
			keep(form{text: strings.TrimSpace(v[len(scheme):])})
		}
	}
	keep(form{text: url.QueryEscape(v)})
	keep(form{text: url.PathEscape(v)})
	for _, core := range base64Cores(v) {
		keep(form{text: core, token: true})
	}
	return out
}

// base64Cores are, for each offset k of 0, 1 and 2 bytes before v within
// encoded data, the characters of the encoding that v's bytes alone decide
// (the first and last may also hold bits of the bytes around v, so they
// are left out), in the standard and the URL-safe alphabets; those shorter
// than minBase64 are left out.
func base64Cores(v string) []string {
	var out []string
	for k := range 3 {
		buf := make([]byte, k+len(v))
		copy(buf[k:], v)
		enc := base64.StdEncoding.EncodeToString(buf)
		first := (8*k + 5) / 6       // the first character wholly within v's bits
		last := 8 * (k + len(v)) / 6 // one past the last such character
		if last-first < minBase64 {
			continue
		}
		core := enc[first:last]
		out = append(out, core)
		if u := strings.NewReplacer("+", "-", "/", "_").Replace(core); u != core {
			out = append(out, u)
		}
	}
	return out
}

// base64Char reports whether c may be part of base64 text (either
// alphabet, and its padding).
func base64Char(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_' || c == '='
}

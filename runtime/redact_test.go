package runtime

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestRedactJSONBoundsItsOutput(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"list":[`)
	for i := range 5000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strings.Repeat("v", 100) + `"`)
	}
	b.WriteString(`]}`)
	out := RedactJSON([]byte(b.String()))
	if len(out) > 2*maxRedactedJSON || !json.Valid(out) || !strings.Contains(string(out), " more") {
		t.Errorf("%d bytes (valid %v): %.300s", len(out), json.Valid(out), out)
	}
	huge := RedactJSON([]byte(`{"image":"` + strings.Repeat("A", maxDecodedJSON) + `"}`))
	if diff := cmp.Diff(`"(1048588 bytes, not shown)"`, string(huge)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNameWords(t *testing.T) {
	for in, want := range map[string][]string{
		"X-Api-Key":    {"x", "api", "key"},
		"apiKey":       {"api", "key"},
		"APIKey":       {"api", "key"},
		"API_KEY":      {"api", "key"},
		"oauth2Token":  {"oauth2", "token"},
		"keyboard":     {"keyboard"},
		"":             nil,
		"Ünïcode-Wörd": {"ünïcode", "wörd"},
	} {
		if diff := cmp.Diff(want, nameWords(in)); diff != "" {
			t.Errorf("nameWords(%q) (-want +got):\n%s", in, diff)
		}
	}
}

// FuzzRedact: redaction never panics, always returns valid JSON, and a
// secret put where it is obviously one (a secret-named field at any depth,
// a bearer token, an sk- key, a secret query parameter) never comes out.
func FuzzRedact(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"c"}]}`), "s3cretValue1", uint8(0))
	f.Add([]byte("not json \xff"), "abcd-1234_XY", uint8(3))
	f.Add([]byte(`{"password":"x"}`), "ZZZZZZZZ9", uint8(7))
	f.Fuzz(func(t *testing.T, raw []byte, secret string, form uint8) {
		out := RedactJSON(raw)
		if !json.Valid(out) {
			t.Fatalf("RedactJSON(%q) = %q, not JSON", raw, out)
		}
		if s := RedactText(string(raw)); utf8.Valid(raw) && !utf8.ValidString(s) {
			t.Fatalf("RedactText(%q) made valid UTF-8 invalid: %q", raw, s)
		}

		// A secret: 8 to 64 token characters with a digit, so it cannot
		// be part of the scaffolding around it or of the Redacted marker.
		if len(secret) < 8 || len(secret) > 64 || strings.Trim(secret, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" || !strings.ContainsAny(secret, "0123456789") {
			return
		}
		names := []string{"password", "Api-Key", "clientSecret", "AUTHORIZATION", "session_cookie", "apikey", "key", "refresh_token"}
		name := names[int(form)%len(names)]
		q, _ := json.Marshal(secret)
		texts := []string{
			"Bearer " + secret,
			"sk-" + secret,
			"https://x.example/p?a=1&" + name + "=" + secret + "&b=2",
			name + ": " + secret,
		}
		text := texts[int(form/8)%len(texts)]
		qt, _ := json.Marshal("see " + text + " here")
		for _, in := range []string{
			`{"` + name + `":` + string(q) + `}`,
			`{"a":{"b":[{"` + name + `":` + string(q) + `}]}}`,
			`{"` + name + `":{"inner":` + string(q) + `}}`,
			`{"text":` + string(qt) + `}`,
			text,
		} {
			if got := RedactJSON([]byte(in)); strings.Contains(string(got), secret) {
				t.Fatalf("RedactJSON(%s) = %s still has the secret", in, got)
			}
		}
		if got := RedactText(text); strings.Contains(got, secret) {
			t.Fatalf("RedactText(%q) = %q still has the secret", text, got)
		}
	})
}

// Secrets masks each value wherever it appears, also as JSON text quotes it,
// longest first, and leaves values too short to be told from ordinary text.
func TestSecretsMaskKnownValues(t *testing.T) {
	var s Secrets
	s.Add(`C:\keys\mine`, "ab", "hunter22", "hunter22-long")
	got := s.Redact(`open C:\keys\mine: {"path":"C:\\keys\\mine"} hunter22-long hunter22 ab`)
	want := `open [redacted]: {"path":"[redacted]"} [redacted] [redacted] ab`
	if got != want {
		t.Errorf("Redact:\n got %s\nwant %s", got, want)
	}
}

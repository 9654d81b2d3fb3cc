package relay

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCredentialLike(t *testing.T) {
	tests := []struct {
		value string
		want  bool
	}{
		// Keys by their issuer's prefix.
		{"sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", true},
		{"sk-ant-api03-AbCdEf123456", true},
		{"sk-test-SECRET-123", true},
		{"sk-or-v1-0123456789abcdef", true},
		{"ghp_16C7e42F292c6912E7710c838347Ae178B4a", true},
		{"github_pat_11ABCDEFG0123456789", true},
		{"xoxb-1234-5678-abcdefgh", true},
		{"glpat-xxxxxxxxxxxxxxxxxxxx", true},
		{"AKIAIOSFODNN7EXAMPLE", true},
		{"AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe", true},
		{"hf_abcdefghijklmnopqrstuvwxyz", true},
		{"gsk_abcdef0123456789", true},
		{"key=sk-live-abcdef123", true}, // inside a larger value
		{"prefix sk-abcdefgh suffix", true},
		// Authentication schemes, any case, also after a comma.
		{"Bearer abc", true},
		{"bearer abc", true},
		{"Basic dXNlcjpwYXNz", true},
		{"Digest username=\"a\", response=\"b\"", true},
		{"Token abc", true},
		{"Negotiate YIIB", true},
		{"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request", true},
		{"realm=x, Bearer abc", true},
		// JSON Web Tokens.
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", true},
		// Long random-looking tokens (an unprefixed API key, a hex HMAC).
		{"3f9a2b7c1d8e4f6a0b5c9d2e7f1a8b3c", true},
		{"Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA", true},
		{"550e8400-e29b-41d4-a716-446655440000", true}, // a request id: hidden, harmlessly
		// Ordinary header values stay.
		{"application/json", false},
		{"text/event-stream", false},
		{"gnosis-host relay", false},
		{"2023-06-01", false},
		{"no-cache", false},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36", false},
		{"en-US,en;q=0.9", false},
		{"desk-lamp", false},      // "sk-" inside a word
		{"sk-1", false},           // a prefix with too little after it
		{"task-runner-v2", false}, // "sk-" not at the start of the token
		{"aaaaaaaaaaaaaaaaaaaaaaaa1", false},
		{"basically fine", false},
		{"", false},
	}
	var diffs []string
	for _, tt := range tests {
		if got := credentialLike(tt.value); got != tt.want {
			diffs = append(diffs, tt.value)
		}
	}
	if len(diffs) > 0 {
		t.Errorf("credentialLike wrong for %q", diffs)
	}
}

// A credential in a header whose name says nothing is redacted all the same;
// a header whose name says it holds one is redacted whatever its value.
func TestDebugHeadersRedactByValueAndByName(t *testing.T) {
	h := http.Header{}
	h.Set("X-Custom", "sk-ant-api03-SECRETSECRET")
	h.Set("X-Trace", "Bearer abc")
	h.Set("X-Api-Key", "plain")
	h.Set("Cookie", "a=b")
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "gnosis-host relay")
	h["X-Multi"] = []string{"ok", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"}
	want := map[string]string{
		"X-Custom": redactedValue, "X-Trace": redactedValue, "X-Api-Key": redactedValue, "Cookie": redactedValue,
		"Content-Type": "application/json", "User-Agent": "gnosis-host relay", "X-Multi": redactedValue,
	}
	if d := cmp.Diff(want, debugHeaders(h)); d != "" {
		t.Errorf("debugHeaders (-want +got):\n%s", d)
	}
}

// Whatever surrounds it and whatever the header is called, a value holding
// a key never reaches the debug log.
func FuzzDebugHeadersHideKeys(f *testing.F) {
	f.Add("X-Custom", "", "sk-ant-api03-AbCdEf123456")
	f.Add("X-Note", "see", "ghp_16C7e42F292c6912E7710c838347Ae178B4a")
	f.Add("Accept", "application/json,", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig")
	f.Add("X", "\t", "AKIAIOSFODNN7EXAMPLE")
	f.Add("Content-Type", "text/plain;", "Bearer x")
	f.Fuzz(func(t *testing.T, name, before, key string) {
		if !credentialLike(key) || name == "" {
			return
		}
		value := before + " " + key
		h := http.Header{name: {value}}
		for n, v := range debugHeaders(h) {
			if v != redactedValue || strings.Contains(n, key) && !strings.Contains(name, key) {
				t.Fatalf("header %q: %q logged as %q", name, value, v)
			}
		}
	})
}

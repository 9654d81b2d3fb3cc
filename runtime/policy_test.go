package runtime

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPolicyDecide(t *testing.T) {
	p := Policy{
		Default: Rule{Allow: []string{"computer.screenshot"}},
		Origins: map[string]Rule{
			"https://chat.example":   {Allow: []string{"computer.*"}, Ask: []string{"computer.type_text"}, Deny: []string{"computer.shell"}},
			"https://*.trusted.dev":  {Allow: []string{"*"}},
			"https://*.dev":          {Ask: []string{"browser.*"}},
			"https://locked.example": {},
			"http://local.test:8080": {Allow: []string{"computer.click"}},
		},
	}
	tests := []struct {
		name       string
		policy     Policy
		origin     string
		capability string
		want       Decision
	}{
		{"zero policy denies everything", Policy{}, "https://any.example", "computer.click", Deny},
		{"zero policy denies a call without origin", Policy{}, "", "computer.click", Deny},
		{"exact origin, matching glob", p, "https://chat.example", "computer.click", Allow},
		{"ask wins over allow", p, "https://chat.example", "computer.type_text", Ask},
		{"deny wins over allow", p, "https://chat.example", "computer.shell", Deny},
		{"exact origin, other prefix", p, "https://chat.example", "browser.open", Deny},
		{"exact origin entry replaces default", p, "https://chat.example", "computer.screenshot", Allow},
		{"empty entry denies all", p, "https://locked.example", "computer.screenshot", Deny},
		{"unlisted origin falls back to default", p, "https://other.example", "computer.screenshot", Allow},
		{"unlisted origin outside default", p, "https://other.example", "computer.click", Deny},
		{"glob origin key", p, "https://a.trusted.dev", "anything.at_all", Allow},
		{"glob origin keys are unioned, deny/ask/allow order kept", p, "https://a.trusted.dev", "browser.open", Ask},
		{"glob origin key does not match the bare domain", p, "https://trusted.dev", "computer.click", Deny},
		{"no origin is judged under the default", p, "", "computer.screenshot", Allow},
		{"no origin gets no more than the default", p, "", "computer.click", Deny},
		{"origin in capitals with a trailing slash is the same origin", p, "HTTPS://Chat.Example/", "computer.click", Allow},
		{"default port is the same origin", p, "https://chat.example:443", "computer.click", Allow},
		{"another port is another origin", p, "https://chat.example:8443", "computer.click", Deny},
		{"a non-default port matches its key", p, "http://LOCAL.test:8080", "computer.click", Allow},
		{"an origin that is not one gets nothing, not the default", p, "javascript:alert(1)", "computer.screenshot", Deny},
		{"a path is not an origin", p, "https://chat.example/x", "computer.click", Deny},
		{"star does not allow a near miss", Policy{Default: Rule{Allow: []string{"computer.*"}}}, "https://x", "computerx.click", Deny},
		{"pattern must match the whole name", Policy{Default: Rule{Allow: []string{"computer.click"}}}, "https://x", "computer.click_twice", Deny},
		{"star in the middle", Policy{Default: Rule{Allow: []string{"computer.*_text"}}}, "https://x", "computer.type_text", Allow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.policy.Decide(tc.origin, tc.capability); got != tc.want {
				t.Errorf("Decide(%q, %q) = %v, want %v", tc.origin, tc.capability, got, tc.want)
			}
		})
	}
}

func TestNormalizeOrigin(t *testing.T) {
	tests := []struct {
		in, want string
		glob     bool
		wantErr  bool
	}{
		{in: "https://chat.example.com", want: "https://chat.example.com"},
		{in: "HTTPS://Chat.Example.COM/", want: "https://chat.example.com"},
		{in: "https://chat.example.com:443", want: "https://chat.example.com"},
		{in: "http://chat.example.com:80/", want: "http://chat.example.com"},
		{in: "http://127.0.0.1:8080", want: "http://127.0.0.1:8080"},
		{in: "http://[::1]:3000/", want: "http://[::1]:3000"},
		{in: "https://chat.example.com:", want: "https://chat.example.com"},
		{in: "https://*.example.com", glob: true, want: "https://*.example.com"},
		{in: "https://*.Example.com/", glob: true, want: "https://*.example.com"},
		{in: "https://*.example.com", wantErr: true},
		{in: "chat.example.com", wantErr: true},
		{in: "ftp://chat.example.com", wantErr: true},
		{in: "https://chat.example.com/path", wantErr: true},
		{in: "https://chat.example.com?q=1", wantErr: true},
		{in: "https://user@chat.example.com", wantErr: true},
		{in: "https://", wantErr: true},
		{in: "https://chat.example.com:99999", wantErr: true},
		{in: "", wantErr: true},
		{in: "null", wantErr: true},
		{in: "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/", want: "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd"},
		{in: "Chrome-Extension://MBEGIMJAGONEMGOHDCNDEPBPFBMLMGDD", want: "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd"},
		{in: "moz-extension://0a1b2c3d-0000-4000-8000-123456789abc", want: "moz-extension://0a1b2c3d-0000-4000-8000-123456789abc"},
		{in: "chrome-extension://*", glob: true, wantErr: true},
		{in: "chrome-extension://abc/page.html", wantErr: true},
		{in: "chrome-extension://abc:80", wantErr: true},
		{in: "chrome-extension://", wantErr: true},
	}
	for _, tc := range tests {
		norm := NormalizeOrigin
		if tc.glob {
			norm = NormalizeOriginKey
		}
		got, err := norm(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("normalize(%q, glob %v) = %q, %v; want %q, error %v", tc.in, tc.glob, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestRuleJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    Rule
		wantErr bool
	}{
		{in: `["computer.*"]`, want: Rule{Allow: []string{"computer.*"}}},
		{in: `{"allow":["a.b"],"ask":["a.c"],"deny":["a.d"]}`, want: Rule{Allow: []string{"a.b"}, Ask: []string{"a.c"}, Deny: []string{"a.d"}}},
		{in: `{}`, want: Rule{}},
		{in: `{"alow":["a.b"]}`, wantErr: true},
		{in: `"computer.*"`, wantErr: true},
	}
	for _, tc := range tests {
		var got Rule
		err := json.Unmarshal([]byte(tc.in), &got)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: error %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if diff := cmp.Diff(tc.want, got); !tc.wantErr && diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.in, diff)
		}
	}
}

func FuzzGlobMatch(f *testing.F) {
	f.Add("computer.*", "computer.click")
	f.Add("*.*.*", "a.b")
	f.Add("a*b*c*d*e*f", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if globMatch(pattern, s) && !globMatch(pattern, s) {
			t.Fatal("not deterministic")
		}
		if globMatch(s, s) == false && !containsStar(s) {
			t.Fatalf("%q does not match itself", s)
		}
	})
}

func containsStar(s string) bool {
	for i := range len(s) {
		if s[i] == '*' {
			return true
		}
	}
	return false
}

// FuzzNormalizeOrigin: normalising is idempotent, and a normal origin has
// nothing after its host and port.
func FuzzNormalizeOrigin(f *testing.F) {
	for _, s := range []string{"https://chat.example.com", "HTTP://A.b:80/", "http://[::1]:3000", "https://x:0", "https://*.a.b", "https://a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, norm := range []func(string) (string, error){NormalizeOrigin, NormalizeOriginKey} {
			n, err := norm(s)
			if err != nil {
				continue
			}
			again, err := norm(n)
			if err != nil || again != n {
				t.Fatalf("%q -> %q -> %q, %v: not idempotent", s, n, again, err)
			}
			if rest := n[strings.Index(n, "://")+3:]; strings.ContainsAny(rest, "/?#@ ") {
				t.Fatalf("%q -> %q keeps more than host and port", s, n)
			}
		}
	})
}

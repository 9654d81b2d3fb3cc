package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/runtime"
)

func TestTextMasksCredentialsInProse(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"password then a value", "login failed: password PLANTEDpw rejected", "login failed: password [redacted] rejected"},
		{"session cookie", "using session cookie zQ8xK2pLm9…", "using session cookie [redacted]"},
		{"password is", "the password is hunter2", "the password is [redacted]"},
		{"token was", "token was ab12cd34ef", "token was [redacted]"},
		{"api key", "api key ZZ-1234-abcd-5678", "api key [redacted]"},
		{"apikey word", "APIKEY Qw3rty!x", "APIKEY [redacted]"},
		{"bearer", "Authorization: Bearer abc.def.ghi", "Authorization: [redacted]"},
		{"an assignment", "db_password=s3cr3t;host=x", "db_password=[redacted];host=x"},
		{"prose without a secret", "token expired, password required, cookie jar", "token expired, password required, cookie jar"},
		{"the word alone", "no password", "no password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, Text(tt.in)); d != "" {
				t.Errorf("Text(%q) (-want +got):\n%s", tt.in, d)
			}
		})
	}
}

func TestSetMasksAKnownValueUnderEveryName(t *testing.T) {
	var s Set
	s.AddJSON([]byte(`{"user":"ann","password":"PLANTEDpw-7","headers":{"Authorization":"Bearer tok-QQ11"},"env":{"OPENAI_API_KEY":"K-9x8y7z","DISPLAY":":0"}}`))
	s.AddEnviron([]string{"GITHUB_TOKEN=ghx-5551212", "PWD=/home/ann", "HOME=/home/ann"})
	s.AddEnv(map[string]string{"DB_PASSWORD": `C:\secret\pw`, "MODE": "fast-mode"})
	in := `text PLANTEDpw-7 and tok-QQ11 and K-9x8y7z and ghx-5551212 and C:\\secret\\pw and C:\secret\pw; ann in /home/ann, fast-mode, :0`
	want := `text [redacted] and [redacted] and [redacted] and [redacted] and [redacted] and [redacted]; ann in /home/ann, fast-mode, :0`
	if d := cmp.Diff(want, s.Redact(in)); d != "" {
		t.Errorf("Redact (-want +got):\n%s", d)
	}
	var nilSet *Set
	if got := nilSet.Redact("password PLANTEDpw"); got != "password [redacted]" {
		t.Errorf("a nil set still masks patterns: %q", got)
	}
}

func TestSetIsBounded(t *testing.T) {
	var s Set
	for i := range maxValues + 50 {
		s.Add(strings.Repeat("x", 5) + string(rune('A'+i%26)) + strings.Repeat("y", i))
	}
	if n := s.Values(); n > maxValues {
		t.Errorf("%d values kept, want at most %d", n, maxValues)
	}
}

// A debug line whose password field was masked by name still quotes the
// value in another field: the writer masks it there, and the line stays
// JSON.
func TestWriterMasksInsideStringsAndKeepsJSON(t *testing.T) {
	var s Set
	s.AddJSON([]byte(`{"password":"PLANTEDpw-7"}`))
	var out bytes.Buffer
	w := Writer(&out, &s)
	line := `{"level":"debug","pid":12345,"arguments":{"password":"[redacted]","text":"my pw is PLANTEDpw-7 \"quoted\" session cookie zQ8xK2pLm9"},"message":"execute"}` + "\n"
	if n, err := w.Write([]byte(line)); err != nil || n != len(line) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("the line is no longer JSON: %v\n%s", err, out.Bytes())
	}
	text := got["arguments"].(map[string]any)["text"]
	if d := cmp.Diff(`my pw is [redacted] "quoted" session cookie [redacted]`, text); d != "" {
		t.Errorf("text (-want +got):\n%s", d)
	}
	if got["pid"] != float64(12345) {
		t.Errorf("a number outside strings changed: %v", got["pid"])
	}
}

// The writer's fast path skips a line in which trigger finds nothing: every
// text the shared redaction table shows masked, and every case of Text
// here, must hold a trigger.
func TestTriggerCoversEveryPattern(t *testing.T) {
	b, err := os.ReadFile("../../runtime/testdata/redact_table.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Text []struct{ In, Want string } `json:"text"`
		JSON []struct{ In, Want string } `json:"json"`
	}
	if err := json.Unmarshal(b, &table); err != nil {
		t.Fatal(err)
	}
	ins := []string{"password PLANTEDpw", "session cookie zQ8x", "api key ZZ-1234", "the token is ab12cd34ef", "eyJabcdefgh.ijklmnopq.rs"}
	for _, c := range append(table.Text, table.JSON...) {
		ins = append(ins, c.In)
	}
	for _, in := range ins {
		if Text(in) != in && !mayHoldSecret([]byte(in)) {
			t.Errorf("Text masks %q, but the fast path would skip it", in)
		}
	}
}

func BenchmarkWriterNoiseLine(b *testing.B) {
	var s Set
	s.AddEnviron([]string{"GITHUB_TOKEN=ghx-5551212", "OPENAI_API_KEY=sk-abcdefghijk"})
	line := []byte(`{"level":"info","provider":"munim","pid":16642,"stream":"stderr","time":"2026-12-02T01:13:54Z","message":"fakemunim noise line 10786 {\"not\":\"a frame\"} \u0000\ufffd"}` + "\n")
	w := Writer(io.Discard, &s)
	for b.Loop() {
		w.Write(line)
	}
}

// Every name runtime.SecretName accepts holds one of nameParts, so AddJSON's
// quick check never skips params with a secret-named field.
func TestNamePartsCoverSecretNames(t *testing.T) {
	for _, name := range []string{"password", "passwd", "passphrase", "pwd", "pass", "secret", "client_secret", "token", "X-Auth-Token",
		"apiKey", "API_KEY", "key", "auth", "Authorization", "Cookie", "set-cookie", "credentials", "privateKey", "accessKey", "signature", "sessionId"} {
		if !runtime.SecretName(name) {
			t.Errorf("%q is not a secret name to the runtime: the list is out of date", name)
		}
		if !mayNameSecret([]byte(`{"` + name + `":"v"}`)) {
			t.Errorf("the quick check skips %q", name)
		}
	}
}

func BenchmarkAddJSONWithoutSecretNames(b *testing.B) {
	var s Set
	params := []byte(`{"capability":"computer.click","arguments":{"x":100,"y":200,"button":"left"},"origin":"https://chat.example.com"}`)
	for b.Loop() {
		s.AddJSON(params)
	}
}

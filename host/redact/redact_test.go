package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/runtime"
)

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

// A flood of secret-named fields (one execute from any page can carry
// thousands) cannot push out what the host knows: the configuration's
// secrets stay, and so does every value learned before the flood; past its
// bound the set records no more, and says how many it missed.
func TestAFloodForgetsNothing(t *testing.T) {
	var s Set
	s.AddEnv(map[string]string{"SERVICE_API_KEY": "PLANTEDenv-55"})
	s.AddJSON([]byte(`{"password":"PLANTEDlearned-1"}`))
	flood := map[string]string{}
	for i := range MaxLearned + 500 {
		flood[fmt.Sprintf("token%d", i)] = fmt.Sprintf("flood-value-%06d", i)
	}
	raw, _ := json.Marshal(flood)
	s.AddJSON(raw)
	if got := s.Redact("with PLANTEDenv-55 and PLANTEDlearned-1"); got != "with [redacted] and [redacted]" {
		t.Errorf("after the flood: %q", got)
	}
	if s.Values() > MaxLearned+1 {
		t.Errorf("%d values kept, want at most %d learned and the one configured", s.Values(), MaxLearned)
	}
	if s.Missed() < 500 {
		t.Errorf("Missed = %d, want the 500 past the bound (and the learned value's)", s.Missed())
	}
	s.Add("PLANTEDlater-9") // the configuration's are recorded whatever the flood
	if got := s.Redact("PLANTEDlater-9"); got != Redacted {
		t.Errorf("a configured value after the flood: %q", got)
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
	ins := []string{"password PLANTEDpw", "session cookie zQ8x", "api key ZZ-1234", "the token is ab12cd34ef", "eyJabcdefgh.ijklmnopq.rs",
		"Password:\nhunter2", `{"pwd":"a\"b"}`, "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA", "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nAAAA",
		"Private-Lines: 2\nAAAA", "x b3BlbnNzaC1rZXktdjEAAAA"}
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

func BenchmarkWriterPlainLine(b *testing.B) {
	var s Set
	s.AddEnviron([]string{"GITHUB_TOKEN=ghx-5551212", "OPENAI_API_KEY=sk-abcdefghijk"})
	line := []byte(`{"level":"info","capability":"computer.click","origin":"https://chat.example.com","durationMs":12,"code":"","time":"2026-12-02T01:13:54Z","message":"execute"}` + "\n")
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

// The quick check reads a large request a window at a time: a name part
// across two windows, or at either end of the request, is still found, and
// maxPart is the longest part (the windows' overlap).
func TestTheQuickCheckFindsANameAcrossItsWindows(t *testing.T) {
	for _, w := range nameParts {
		if len(w) > maxPart {
			t.Errorf("nameParts holds %q, longer than maxPart %d", w, maxPart)
		}
	}
	filler := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name string
		raw  string
		want bool
	}{
		{"none in a large request", filler(3 * scanWindow), false},
		{"across the first boundary", filler(scanWindow-4) + "CREDENTIAL" + filler(100), true},
		{"at the very end", filler(2*scanWindow+5) + "Token", true},
		{"at the start", "pwd" + filler(scanWindow), true},
		{"ending on a boundary", filler(scanWindow-3) + "key" + filler(10), true},
		{"starting on a boundary", filler(scanWindow) + "secret", true},
	}
	for _, tt := range tests {
		if got := mayNameSecret([]byte(tt.raw)); got != tt.want {
			t.Errorf("%s: mayNameSecret = %v, want %v", tt.name, got, tt.want)
		}
	}
}

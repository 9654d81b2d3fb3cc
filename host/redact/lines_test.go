package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// stderrLine is the log line the host writes for one line a provider wrote
// on stderr (runtime/mcpprovider's logStderr).
func stderrLine(provider, text string) []byte {
	b, _ := json.Marshal(map[string]string{"level": "info", "provider": provider, "stream": "stderr", "time": "2026-01-02T03:04:05Z", "message": text})
	return append(b, '\n')
}

// The state of a provider's stderr does not reach other lines: a line of
// another kind after "password:" is masked on its own terms.
func TestLinesCarryOnlyWithinAStream(t *testing.T) {
	l := NewLines(nil)
	l.Redact(stderrLine("chatty", "Password:"))
	other := []byte(`{"level":"info","message":"capabilities changed"}` + "\n")
	if got := l.Redact(other); !bytes.Equal(got, other) {
		t.Errorf("a line that is not the provider's stderr was changed: %s", got)
	}
	if got := string(l.Redact(stderrLine("chatty", "s3cret!"))); !strings.Contains(got, `"message":"[redacted]"`) {
		t.Errorf("the provider's next line: %s", got)
	}
}

// A line with nothing to mask is passed on as it is, not copied.
func TestLinesLeaveACleanLineAlone(t *testing.T) {
	var s Set
	s.AddEnv(map[string]string{"API_KEY": "PLANTEDenv-55xyz"})
	l := NewLines(&s)
	line := []byte(`{"level":"info","capability":"computer.click","durationMs":3,"message":"execute"}` + "\n")
	if got := l.Redact(line); &got[0] != &line[0] {
		t.Errorf("a clean line was copied: %s", got)
	}
	notJSON := []byte("half a line {\"password\":\"PLANTEDenv-55xyz")
	if got := string(l.Redact(notJSON)); strings.Contains(got, "PLANTED") {
		t.Errorf("a line that is not JSON was not masked as text: %s", got)
	}
}

// decode undoes JSON's escapes as encoding/json does.
func TestDecodeIsJSONs(t *testing.T) {
	for _, s := range []string{"plain", `a"b\c/d`, "tab\tnl\nnul\x00 é ☃ 😀 \u2028 \ufffd", "\x7f\x01"} {
		raw, _ := json.Marshal(s)
		line := []byte(`{"m":` + string(raw) + `}`)
		lits, _ := literals(line)
		if got := decode(line, lits[1]); got != s {
			t.Errorf("decode(%s) = %q, want %q", raw, got, s)
		}
	}
	for raw, want := range map[string]string{`"\ud83d\ude00"`: "😀", `"\/x"`: "/x", `"\ud800x"`: "\ufffdx", `"\q"`: `\q`} {
		line := []byte(`{"m":` + raw + `}`)
		lits, _ := literals(line)
		if got := decode(line, lits[1]); got != want {
			t.Errorf("decode(%s) = %q, want %q", raw, got, want)
		}
	}
}

package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stderrLine is the log line the host writes for one line a provider wrote
// on stderr (runtime/mcpprovider's logStderr).
func stderrLine(provider, text string) []byte {
	b, _ := json.Marshal(map[string]string{"level": "info", "provider": provider, "stream": "stderr", "time": "2026-01-02T03:04:05Z", "message": text})
	return append(b, '\n')
}

// A provider's stderr arrives as one log line per line it wrote: what a
// line break cuts (a known value, "password:" and its value, a private
// key's body) is masked across those log lines, provider by provider, and
// each line stays JSON.
func TestLinesMaskAcrossAProvidersStderrLines(t *testing.T) {
	var s Set
	s.AddEnv(map[string]string{"SERVICE_API_KEY": "PLANTEDenv-55xyz"})
	steps := []struct{ provider, in, want string }{
		{"chatty", "connecting with PLANTEDen", "connecting with [redacted]"},
		{"other", "v-55xyz is not a secret on its own", "v-55xyz is not a secret on its own"},
		{"chatty", "v-55xyz accepted", "[redacted] accepted"},
		{"chatty", "Password:", "Password:"},
		{"other", "unrelated", "unrelated"},
		{"chatty", "hunter2 XYZ", "[redacted]"},
		{"chatty", "-----BEGIN OPENSSH PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY-----"},
		{"chatty", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "[redacted]"},
		{"chatty", "AAAAMwAAAAtzc2gtZWQyNTUxOQAAACD", "[redacted]"},
		{"chatty", "-----END OPENSSH PRIVATE KEY-----", "-----END OPENSSH PRIVATE KEY-----"},
		{"chatty", "listening on stdio", "listening on stdio"},
		{"chatty", `sent {"password":"[redacted]"rest of it"}`, `sent {"password":"[redacted]"}`},
		{"chatty", "key P", "key P"}, // one byte: too short to tell
		{"chatty", "LANTEDenv-55xyz and on", "[redacted] and on"},
	}
	var out bytes.Buffer
	w := Writer(&out, &s)
	for _, st := range steps {
		w.Write(stderrLine(st.provider, st.in))
	}
	var got, want []string
	for i, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var m map[string]string
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d is no longer JSON: %v\n%s", i, err, l)
		}
		got = append(got, m["provider"]+": "+m["message"])
		want = append(want, steps[i].provider+": "+steps[i].want)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
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

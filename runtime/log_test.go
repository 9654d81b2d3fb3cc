package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
)

// loginTool takes a password; its schema wants one of 40 characters, so a
// shorter one fails validation with a message that quotes it.
var loginTool = Tool{Name: "login", InputSchema: json.RawMessage(`{"type":"object","properties":{"user":{"type":"string"},"password":{"type":"string","minLength":40},"headers":{"type":"object"}}}`)}

const typedPassword = "hunter2-correct-horse"

// executeLogs runs one execute of computer.login that succeeds and one that
// fails validation, both carrying typedPassword, with a logger at level,
// and returns the execute lines.
func executeLogs(t *testing.T, level zerolog.Level) []map[string]any {
	t.Helper()
	var logs bytes.Buffer
	r := started(t, []Option{WithLogger(zerolog.New(&logs).Level(level))}, newFake("munim", "computer", loginTool))
	long := strings.Repeat("p", 40)
	for _, args := range []string{
		`{"user":"ann","password":"` + long + `","headers":{"Authorization":"Bearer ` + typedPassword + `"}}`,
		`{"user":"ann","password":"` + typedPassword + `"}`,
	} {
		r.Execute(context.Background(), Call{ID: "7", Capability: "computer.login", Origin: "https://chat.example", Arguments: json.RawMessage(args)})
	}
	if strings.Contains(logs.String(), typedPassword) || strings.Contains(logs.String(), long) {
		t.Errorf("the password is in the log at level %s:\n%s", level, logs.String())
	}
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %s", line)
		}
		if m["message"] == "execute" {
			delete(m, "duration")
			lines = append(lines, m)
		}
	}
	return lines
}

func TestExecuteLogsNoArgumentValuesAtInfo(t *testing.T) {
	want := []map[string]any{
		{"level": "info", "message": "execute", "id": "7", "capability": "computer.login", "origin": "https://chat.example", "outcome": "ok", "argumentBytes": 127.0, "resultBytes": 14.0},
		{"level": "warn", "message": "execute", "id": "7", "capability": "computer.login", "origin": "https://chat.example", "outcome": "INVALID_ARGUMENTS", "argumentBytes": 49.0},
	}
	if diff := cmp.Diff(want, executeLogs(t, zerolog.InfoLevel)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestExecuteLogsRedactedArgumentsAtDebug(t *testing.T) {
	lines := executeLogs(t, zerolog.DebugLevel)
	if len(lines) != 2 {
		t.Fatalf("%d execute lines, want 2: %v", len(lines), lines)
	}
	wantArgs := []any{
		map[string]any{"user": "ann", "password": Redacted, "headers": map[string]any{"Authorization": Redacted}},
		map[string]any{"user": "ann", "password": Redacted},
	}
	for i, want := range wantArgs {
		if diff := cmp.Diff(want, lines[i]["arguments"]); diff != "" {
			t.Errorf("arguments of call %d (-want +got):\n%s", i, diff)
		}
	}
	if msg, _ := lines[1]["error"].(string); !strings.Contains(msg, "at least 40 characters long") || strings.Contains(msg, typedPassword) {
		t.Errorf("error of the failed call: %q, want the violation without the value", msg)
	}
}

func TestRedactMessageMasksSecretValuesOfTheContext(t *testing.T) {
	ctx := []byte(`{"arguments":{"user":"ann","auth":{"pin":"1234","otp":99},"apiKey":"ab"}}`)
	got := RedactMessage(`/auth/pin: 1234 is wrong; user ann; otp 99; key ab; token=xyz`, ctx)
	want := `/auth/pin: [redacted] is wrong; user ann; otp 99; key ab; token=[redacted]`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

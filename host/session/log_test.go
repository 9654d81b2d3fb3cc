package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/runtime"
)

// lockedBuffer is a log destination the test reads while the session writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestFailedRequestIsLoggedWithoutItsSecrets: a method whose error quotes a
// password from its params is logged at debug with the password masked.
func TestFailedRequestIsLoggedWithoutItsSecrets(t *testing.T) {
	const password = "hunter2-correct-horse"
	var logs lockedBuffer
	login := func(_ context.Context, c *Call) (any, error) {
		var p struct {
			Form struct{ Password string } `json:"form"`
		}
		json.Unmarshal(c.Params, &p)
		return nil, fmt.Errorf("login refused for password %s with Authorization: Bearer abc123", p.Form.Password)
	}
	h := startHost(t, WithLogger(zerolog.New(&logs).Level(zerolog.DebugLevel)), WithMethod("login", login))
	got := h.call(`{"id":1,"method":"login","params":{"form":{"user":"ann","password":"` + password + `"}}}`)
	if got["code"] != "EXECUTION_ERROR" {
		t.Fatalf("reply %v", got)
	}
	out := logs.String()
	if strings.Contains(out, password) || strings.Contains(out, "abc123") {
		t.Errorf("a secret is in the log:\n%s", out)
	}
	if !strings.Contains(out, "login refused for password "+runtime.Redacted) {
		t.Errorf("no redacted failure line in the log:\n%s", out)
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/host/framing"
)

// hostProcess starts this test binary as a host with the given argv[1:], as
// a browser would, and returns its stdin and a frame reader on its stdout.
func hostProcess(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, *framing.Reader) {
	t.Helper()
	withConfig(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, in, framing.NewReader(out, 0)
}

// exitsWithin waits for cmd and returns its exit status, failing the test if
// it takes longer than d.
func exitsWithin(t *testing.T, cmd *exec.Cmd, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("host still running %v after its input ended", d)
		return -1
	}
}

func readReply(t *testing.T, r *framing.Reader, keys ...string) map[string]any {
	t.Helper()
	body, err := r.Read()
	if err != nil {
		t.Fatalf("reading reply: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("reply is not JSON: %v: %s", err, body)
	}
	out := map[string]any{}
	for _, k := range keys {
		out[k] = m[k]
	}
	return out
}

func TestUntrustedExtensionIsForbiddenButServed(t *testing.T) {
	cmd, in, r := hostProcess(t, "chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/", "--parent-window=0")
	for _, id := range []float64{1, 2} {
		framing.Write(in, []byte(fmt.Sprintf(`{"id":%v,"method":"health"}`, id)))
		got := readReply(t, r, "id", "ok", "code")
		if diff := cmp.Diff(map[string]any{"id": id, "ok": false, "code": "FORBIDDEN"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
	in.Close()
	if status := exitsWithin(t, cmd, time.Second); status != 0 {
		t.Errorf("exit status %d, want 0", status)
	}
}

func TestOversizedFrameIsAnsweredThenTheHostExits(t *testing.T) {
	cmd, in, r := hostProcess(t, "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/")
	hdr := make([]byte, 4)
	framing.Order.PutUint32(hdr, framing.MaxInbound+1)
	in.Write(hdr) // the body is never sent: the host must not wait for it
	got := readReply(t, r, "id", "ok", "code")
	if diff := cmp.Diff(map[string]any{"id": nil, "ok": false, "code": "MESSAGE_TOO_LARGE"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if status := exitsWithin(t, cmd, time.Second); status != 0 {
		t.Errorf("exit status %d, want 0", status)
	}
}

func TestEndOfInputEndsTheHostQuickly(t *testing.T) {
	cmd, in, _ := hostProcess(t, "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/")
	time.Sleep(50 * time.Millisecond) // let it start serving
	in.Close()
	if status := exitsWithin(t, cmd, time.Second); status != 0 {
		t.Errorf("exit status %d, want 0", status)
	}
}

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
// a browser would, and returns it, its stdin and a frame reader on its stdout.
func hostProcess(t *testing.T, args ...string) (*proc, io.WriteCloser, *framing.Reader) {
	t.Helper()
	withConfig(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	in, _ := cmd.StdinPipe()
	// An os.Pipe of our own, not StdoutPipe: Wait closes StdoutPipe's reader
	// when the process exits, and a host that answers and exits at once
	// would lose its last reply to that race.
	out, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { out.Close() })
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-p.exited })
	return p, in, framing.NewReader(out, 0)
}

// proc is a host process and a channel closed when it has exited.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

// exitStatus waits for the host to exit and returns its status. The bound is
// generous (a loaded machine, the race detector): the one-second goal is the
// benchmark's and the integration tests' business; here it must just exit.
func (p *proc) exitStatus(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(5 * time.Second):
		t.Fatal("host still running 5 s after its input ended")
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
	if status := cmd.exitStatus(t); status != 0 {
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
	if status := cmd.exitStatus(t); status != 0 {
		t.Errorf("exit status %d, want 0", status)
	}
}

func TestEndOfInputEndsTheHostQuickly(t *testing.T) {
	cmd, in, r := hostProcess(t, "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/")
	framing.Write(in, []byte(`{"id":1,"method":"health"}`))
	readReply(t, r) // serving
	in.Close()
	if status := cmd.exitStatus(t); status != 0 {
		t.Errorf("exit status %d, want 0", status)
	}
}

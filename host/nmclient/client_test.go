package nmclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gnosis/gnosis/host/chunk"
	"github.com/gnosis/gnosis/host/framing"
	"github.com/gnosis/gnosis/host/launch"
	"github.com/gnosis/gnosis/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// The test binary doubles as the peer: started with NMCLIENT_PEER set, it
// behaves as a small host (see peer), so the client's process handling is
// exercised across a real pipe without building gnosis-host.
func TestMain(m *testing.M) {
	if os.Getenv("NMCLIENT_PEER") != "" {
		os.Exit(peer())
	}
	os.Exit(m.Run())
}

// peer answers framed requests: "launch" with its arguments, folder and
// NMCLIENT_X; "echo" with a progress event then its params; "big" with a
// reply chunked into 1 KiB frames; "exit" by exiting with status 3 at once;
// "hang" by ignoring everything from then on; "silent" not at all.
func peer() int {
	fmt.Fprintln(os.Stderr, "peer log line")
	health := 0
	for {
		body, err := framing.Read(os.Stdin, nil, framing.MaxInbound)
		if err != nil {
			return 0
		}
		var req struct {
			ID     json.RawMessage
			Method string
			Params json.RawMessage
		}
		json.Unmarshal(body, &req)
		reply := func(v any) {
			b, _ := json.Marshal(map[string]any{"id": req.ID, "ok": true, "result": v})
			framing.Write(os.Stdout, b)
		}
		switch req.Method {
		case "launch":
			dir, _ := os.Getwd()
			reply(map[string]any{"args": os.Args[1:], "dir": dir, "x": os.Getenv("NMCLIENT_X")})
		case "echo":
			framing.Write(os.Stdout, []byte(`{"id":`+string(req.ID)+`,"event":"progress"}`))
			framing.Write(os.Stdout, []byte(`{"event":"provider.state"}`))
			reply(req.Params)
		case "big":
			b, _ := json.Marshal(map[string]any{"id": req.ID, "ok": true, "result": strings.Repeat("ü", 5000)})
			chunk.Each(req.ID, b, 1024, func(f []byte) error { return framing.Write(os.Stdout, f) })
		case "health":
			// NMCLIENT_HEALTH: "starting N" (the first N replies say a
			// provider is starting), "not ok" or "silent".
			health++
			var n int
			mode := os.Getenv("NMCLIENT_HEALTH")
			fmt.Sscanf(mode, "starting %d", &n)
			state := "ready"
			if health <= n {
				state = "starting"
			}
			switch {
			case mode == "silent":
			case mode == "not ok":
				framing.Write(os.Stdout, []byte(`{"id":`+string(req.ID)+`,"ok":false,"error":true}`))
			default:
				framing.Write(os.Stdout, []byte(fmt.Sprintf(`{"id":%s,"ok":true,"n":%d,"providers":[{"state":%q}]}`, req.ID, health, state)))
			}
		case "exit":
			return 3
		case "hang":
			time.Sleep(time.Minute)
		}
	}
}

func startPeer(t *testing.T, opts ...Option) *Client {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "NMCLIENT_PEER=1")
	c, err := Start(exe, append([]Option{WithEnv(env)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop(5 * time.Second) })
	return c
}

func within() <-chan time.Time { return time.After(30 * time.Second) }

// modes are the two ways of reading the host's output.
var modes = []struct {
	name string
	opts []Option
}{{"reading goroutine", nil}, {"inline reads", []Option{WithInlineReads()}}}

func TestCallReturnsItsReplyPastEventsAndChunks(t *testing.T) {
	big, _ := json.Marshal(map[string]any{"id": 0, "ok": true, "result": strings.Repeat("ü", 5000)})
	tests := []struct {
		method string
		params any
		want   string
	}{
		{"echo", map[string]int{"a": 1}, `{"id":%s,"ok":true,"result":{"a":1}}`},
		{"echo", nil, `{"id":%s,"ok":true,"result":null}`},
		{"big", nil, strings.Replace(string(big), `"id":0`, `"id":%s`, 1)},
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			c := startPeer(t, mode.opts...)
			for i, tt := range tests {
				got, err := c.Call(tt.method, tt.params, nil)
				if err != nil {
					t.Fatalf("%s: %v", tt.method, err)
				}
				if diff := cmp.Diff(fmt.Sprintf(tt.want, fmt.Sprint(i+1)), string(got)); diff != "" {
					t.Errorf("%s reply (-want +got):\n%s", tt.method, diff)
				}
			}
			if s := c.Stats(); s.Largest > 1024 || s.Frames < 10 {
				t.Errorf("stats %+v: want at least 10 frames of at most 1024 bytes", s)
			}
			if _, err := c.Call("exit", nil, nil); !errors.Is(err, io.EOF) {
				t.Errorf("exit: err = %v, want one wrapping io.EOF", err)
			}
			if _, err := c.Call("echo", nil, nil); err == nil {
				t.Errorf("call after exit: err = %v, want an error", err)
			}
		})
	}
}

func TestStartLaunchesAsABrowserDoes(t *testing.T) {
	exe, _ := os.Executable()
	elsewhere := t.TempDir()
	tests := []struct {
		name string
		opts []Option
		want map[string]any
	}{
		{"defaults", nil, map[string]any{"args": []any{launch.OurOrigin}, "dir": dirOf(exe), "x": ""}},
		{"windows arguments", []Option{WithArgs("--parent-window=0")},
			map[string]any{"args": []any{launch.OurOrigin, "--parent-window=0"}, "dir": dirOf(exe), "x": ""}},
		{"foreign origin, folder and environment",
			[]Option{WithOrigin("chrome-extension://other/"), WithDir(elsewhere), WithEnv(append(os.Environ(), "NMCLIENT_PEER=1", "NMCLIENT_X=y"))},
			map[string]any{"args": []any{"chrome-extension://other/"}, "dir": elsewhere, "x": "y"}},
		{"through a launcher", []Option{WithLauncher("/usr/bin/env", "NMCLIENT_X=launched")},
			map[string]any{"args": []any{launch.OurOrigin}, "dir": dirOf(exe), "x": "launched"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startPeer(t, tt.opts...)
			reply, err := c.Call("launch", nil, within())
			if err != nil {
				t.Fatal(err)
			}
			var r struct{ Result map[string]any }
			if err := json.Unmarshal(reply, &r); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, r.Result); diff != "" {
				t.Errorf("launch (-want +got):\n%s", diff)
			}
		})
	}
}

func dirOf(p string) string { return p[:strings.LastIndex(p, string(os.PathSeparator))] }

func TestAwaitReportsTimeoutAndExit(t *testing.T) {
	c := startPeer(t)
	if _, err := c.Call("silent", nil, time.After(50*time.Millisecond)); !errors.Is(err, ErrTimeout) {
		t.Errorf("silent: err = %v, want ErrTimeout", err)
	}
	if _, err := c.Call("exit", nil, within()); !errors.Is(err, io.EOF) {
		t.Errorf("exit: err = %v, want one wrapping io.EOF", err)
	}
	<-c.Exited()
	if code := c.ExitCode(); code != 3 {
		t.Errorf("exit code %d, want 3", code)
	}
}

func TestStopClosesInputAndKillsOnlyAHostThatLingers(t *testing.T) {
	stderr := NewLogTail(1 << 10)
	c := startPeer(t, WithStderr(stderr))
	if _, err := c.Call("echo", nil, within()); err != nil {
		t.Fatal(err)
	}
	if killed := c.Stop(10 * time.Second); killed {
		t.Error("a host that exits when its input closes was killed")
	}
	if got := c.ExitCode(); got != 0 {
		t.Errorf("exit code %d, want 0", got)
	}
	// The log is copied as it comes; give the copier time to catch up.
	testwait.Until(t, 10*time.Second, func() error {
		if got := stderr.String(); !strings.Contains(got, "peer log line") {
			return fmt.Errorf("stderr %q lacks the host's log", got)
		}
		return nil
	})

	c = startPeer(t)
	if _, err := c.Request("hang", nil); err != nil {
		t.Fatal(err)
	}
	if killed := c.Stop(100 * time.Millisecond); !killed {
		t.Error("a host ignoring its closed input was not killed")
	}
}

package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/testwait"
)

// lockedOrigin is a web origin the policy restricts to computer.echo.
const lockedOrigin = "https://locked.example"

// fake is one fakemunim provider's files: its call log and state directory.
type fake struct {
	t     *testing.T
	log   string
	state string
}

func newFake(t *testing.T) *fake {
	t.Helper()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o755); err != nil {
		t.Fatal(err)
	}
	return &fake{t: t, log: filepath.Join(dir, "calls.jsonl"), state: state}
}

// provider is the configuration entry that runs this fake.
func (f *fake) provider(name, prefix, timeout string, env map[string]string) ProviderConfig {
	e := map[string]string{"FAKEMUNIM_LOG": f.log, "FAKEMUNIM_STATE": f.state}
	for k, v := range env {
		e[k] = v
	}
	return ProviderConfig{Name: name, Command: fakemunimBin, Env: e, Prefix: prefix, Timeout: timeout}
}

// callEntry is one line of fakemunim's call log.
type callEntry struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Cancelled bool            `json:"cancelled"`
	PID       int             `json:"pid"`
}

// calls reads the call log.
func (f *fake) calls() []callEntry {
	f.t.Helper()
	b, err := os.ReadFile(f.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	var out []callEntry
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e callEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			f.t.Fatalf("bad call log line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// awaitCall polls the call log until an entry matches.
func (f *fake) awaitCall(what string, match func(callEntry) bool) callEntry {
	f.t.Helper()
	var found callEntry
	testwait.Until(f.t, replyTimeout, func() error {
		calls := f.calls()
		for _, e := range calls {
			if match(e) {
				found = e
				return nil
			}
		}
		return fmt.Errorf("fakemunim has not logged %s; log: %+v", what, calls)
	})
	return found
}

// awaitStarted waits until the slow call tagged tag has begun at the server.
func (f *fake) awaitStarted(tag string) {
	f.t.Helper()
	path := filepath.Join(f.state, tag+".started")
	testwait.Until(f.t, replyTimeout, func() error {
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("slow call %q has not started at the server: %w", tag, err)
		}
		return nil
	})
}

// standardConfig is one fakemunim with prefix "computer" and a policy that
// locks lockedOrigin to computer.echo. Its per-call timeout is a minute, room
// for a loaded machine to move megabytes (the timeout's own tests set theirs).
func standardConfig(f *fake) *Config {
	return &Config{
		Providers: []ProviderConfig{f.provider("munim", "computer", "60s", nil)},
		Policy: &Policy{
			Default: []string{"*"},
			Origins: map[string]any{lockedOrigin: []string{"computer.echo"}},
		},
	}
}

// startStandard starts a host on the standard config and waits until it is ready.
func startStandard(t *testing.T) (*host, *fake) {
	t.Helper()
	f := newFake(t)
	h := startHost(t, hostOptions{config: standardConfig(f)})
	h.awaitReady()
	return h, f
}

// markedProcesses lists live processes whose environment carries
// GNOSIS_TEST_MARK=mark: the host and everything it started, however deep,
// even after they were re-parented. Linux only (nil elsewhere).
func markedProcesses(mark string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	needle := []byte("GNOSIS_TEST_MARK=" + mark + "\x00")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append(env, 0), needle) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Field 3 (after "pid (comm)") is the state; zombies are already dead.
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

package mcpprovider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnosis/gnosis/internal/testwait"
	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
	"github.com/rs/zerolog"
)

// testServer is the path of the built internal/testserver binary.
var testServer string

func TestMain(m *testing.M) {
	// A prebuilt server (for a cross-compiled test binary run under Wine,
	// where there is no Go toolchain).
	if p := os.Getenv("MCPPROVIDER_TESTSERVER"); p != "" {
		testServer = p
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "mcpprovider-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testServer = filepath.Join(dir, "testserver"+exeSuffix())
	build := exec.Command("go", "build", "-o", testServer, "./internal/testserver")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building testserver:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// logBuffer is a concurrency-safe log sink the tests can search.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	testwait.Until(t, timeout, func() error {
		if cond() {
			return nil
		}
		return fmt.Errorf("waiting for %s", what)
	})
}

// events records runtime events.
type events struct {
	mu  sync.Mutex
	all []runtime.Event
}

func (e *events) add(ev runtime.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

func (e *events) states() []runtime.State {
	e.mu.Lock()
	defer e.mu.Unlock()
	var s []runtime.State
	for _, ev := range e.all {
		if ev.Kind == runtime.EventProviderState {
			s = append(s, ev.Provider.State)
		}
	}
	return s
}

func (e *events) count(kind string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.all {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

type harness struct {
	rt     *runtime.Runtime
	prov   *Provider
	log    *logBuffer
	events *events
	starts string // file the test server appends its pid to on every start
}

// startTestServer runs a Runtime with one provider "test" (prefix "t") over
// the test server started with args, and waits until it is settled.
func startTestServer(t testing.TB, cfg Config, opts ...Option) *harness {
	t.Helper()
	h := &harness{log: &logBuffer{}, events: &events{}, starts: filepath.Join(tempDir(t), "starts")}
	if cfg.Name == "" {
		cfg.Name = "test"
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "t"
	}
	if cfg.Command == "" {
		cfg.Command = testServer
	}
	if cfg.Env == nil {
		cfg.Env = map[string]string{}
	}
	cfg.Env["TESTSERVER_STARTS"] = h.starts
	logger := zerolog.New(h.log)
	opts = append([]Option{WithLogger(logger), WithBackoff(50*time.Millisecond, 400*time.Millisecond, 30*time.Second)}, opts...)
	h.prov = New(cfg, opts...)
	// These tests are about the provider: the policy allows every call.
	allowAll := runtime.Policy{Default: runtime.Rule{Allow: []string{"*"}}}
	h.rt = runtime.New(runtime.WithProvider(h.prov), runtime.WithLogger(logger), runtime.WithEvents(h.events.add), runtime.WithPolicy(allowAll))
	if err := h.rt.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { h.rt.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.rt.WaitSettled(ctx); err != nil {
		t.Fatalf("provider did not settle: %v\nlog:\n%s", err, h.log)
	}
	return h
}

func (h *harness) pids(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(h.starts)
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}

// compact returns s compacted, as a server's JSON encoder sends it.
func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func codeOf(err error) wire.Code {
	if err == nil {
		return ""
	}
	return wire.CodeOf(err)
}

// tempDir is t.TempDir without failing the test when removal fails (Wine
// cannot unlink the way Go's RemoveAll asks it to).
func tempDir(t testing.TB) string {
	d, err := os.MkdirTemp("", "mcpprovider")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func itoa(i int) string { return fmt.Sprint(i) }

func exeSuffix() string {
	if goruntime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

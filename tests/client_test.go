package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnosis/gnosis/host/nmclient"
	"github.com/gnosis/gnosis/host/register"
	"github.com/gnosis/gnosis/internal/testwait"
)

// extensionOrigin is the origin Chrome passes as argv[1] for our extension.
const extensionOrigin = "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/"

// replyTimeout bounds every wait for a reply or an event. It is generous on
// purpose: tests assert what happens, never how fast.
const replyTimeout = 30 * time.Second

// defaultMaxFrame is Chrome's limit on a host-to-browser frame.
const defaultMaxFrame = 1 << 20

// Config is the host's configuration file (docs/protocol.md, README).
type Config struct {
	Providers []ProviderConfig `json:"providers"`
	Policy    *Policy          `json:"policy,omitempty"`
	Log       map[string]any   `json:"log,omitempty"`
}

// ProviderConfig is one MCP stdio server in the configuration.
type ProviderConfig struct {
	Name    string            `json:"name"`
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Prefix  string            `json:"prefix"`
	Timeout string            `json:"timeout,omitempty"`
	// StartTimeout bounds the server's start-up (spawn, initialize, tools/list).
	StartTimeout string `json:"startTimeout,omitempty"`
	// AssertFormats asserts "format" in the server's schemas whatever
	// their dialect.
	AssertFormats bool `json:"assertFormats,omitempty"`
}

// Policy is the per-origin capability policy. A rule is a list of patterns
// or {"allow", "ask", "deny"} lists.
type Policy struct {
	Default    any            `json:"default"`
	Origins    map[string]any `json:"origins,omitempty"`
	AskTimeout string         `json:"askTimeout,omitempty"`
}

// allowAll is the policy of tests about something else than the policy:
// with none, the host denies every provider capability.
var allowAll = &Policy{Default: []string{"*"}}

// hostOptions say how to start a host.
type hostOptions struct {
	config    *Config // written to a temporary file named by GNOSIS_CONFIG
	rawConfig string  // written verbatim instead of config when set
	noConfig  bool    // GNOSIS_CONFIG names a file that does not exist
	origin    string  // argv[1]; extensionOrigin when empty
	maxFrame  int     // GNOSIS_MAX_FRAME when > 0
	env       []string
}

// reply is one reply from the host, reassembled if it came in chunks.
type reply struct {
	ID      json.RawMessage `json:"id"`
	OK      bool            `json:"ok"`
	Error   json.RawMessage `json:"error"` // true on failures; health uses a string here
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Details json.RawMessage `json:"details"`
	Result  json.RawMessage `json:"result"`

	raw    []byte // the reply's whole JSON text
	frames int    // how many frames carried it (1 when not chunked)
}

// failed reports whether the reply is a failure ("error": true).
func (r reply) failed() bool { return string(r.Error) == "true" }

// field decodes one top-level field of the reply into v.
func (r reply) field(t *testing.T, name string, v any) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.raw, &m); err != nil {
		t.Fatalf("reply is not an object: %v: %s", err, clip(r.raw))
	}
	raw, ok := m[name]
	if !ok {
		t.Fatalf("reply has no %q: %s", name, clip(r.raw))
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("reply field %q: %v: %s", name, err, clip(raw))
	}
}

// event is one message without an id pushed by the host.
type event struct {
	ID           json.RawMessage `json:"id"`
	Event        string          `json:"event"`
	Name         string          `json:"name"`
	Prefix       string          `json:"prefix"`
	State        string          `json:"state"`
	Error        string          `json:"error"`
	Capabilities int             `json:"capabilities"`
	// Fields of an approval event.
	Origin     string          `json:"origin"`
	Capability string          `json:"capability"`
	Arguments  json.RawMessage `json:"arguments"`
	Title      string          `json:"title"`
	TimeoutMs  int64           `json:"timeoutMs"`
	raw        []byte
}

// host is a running gnosis-host driven the way a browser drives it, through
// the shared native-messaging client, plus the test's own bookkeeping and
// strictness: every frame on stdout must be within the limit and a JSON
// object, and chunks of a reply consecutive and complete.
type host struct {
	t     *testing.T
	c     *nmclient.Client
	mark  string // GNOSIS_TEST_MARK value in the environment of the host and its providers
	dir   string // temporary directory of this host (config, logs, fakemunim state)
	limit int    // outbound frame limit the host must respect

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced whenever something arrives
	replies    map[string][]reply
	nulls      []reply
	events     []event
	violations []string

	readDone chan struct{}
	stderr   *nmclient.LogTail
}

// startHost starts the real binary with argv[1] set to the caller's origin,
// a private environment (HOME and XDG dirs in a temporary directory, so logs
// and default config stay out of the user's), and the given configuration.
func startHost(t *testing.T, o hostOptions) *host {
	t.Helper()
	dir := t.TempDir()
	mark := fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "_"), time.Now().UnixNano())
	cfgPath := filepath.Join(dir, "config.json")
	switch {
	case o.noConfig:
	case o.rawConfig != "":
		writeFile(t, cfgPath, []byte(o.rawConfig))
	case o.config != nil:
		if o.config.Policy == nil {
			o.config.Policy = allowAll
		}
		for i := range o.config.Providers {
			p := &o.config.Providers[i]
			if p.Env == nil {
				p.Env = map[string]string{}
			}
			p.Env["GNOSIS_TEST_MARK"] = mark
		}
		b, err := json.MarshalIndent(o.config, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, cfgPath, b)
	default:
		writeFile(t, cfgPath, []byte(`{"providers":[]}`))
	}
	origin := o.origin
	if origin == "" {
		origin = extensionOrigin
	}
	limit := defaultMaxFrame
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"GNOSIS_CONFIG=" + cfgPath,
		"GNOSIS_LOG_LEVEL=debug",
		"GNOSIS_TEST_MARK=" + mark,
		register.EnvSystemRoot + "=" + filepath.Join(dir, "system-root"), // the report method's doctor: not the machine's registrations
	}
	if o.maxFrame > 0 {
		limit = o.maxFrame
		env = append(env, "GNOSIS_MAX_FRAME="+strconv.Itoa(o.maxFrame))
	}
	env = append(env, o.env...)

	h := &host{
		t: t, mark: mark, dir: dir, limit: limit,
		changed: make(chan struct{}), replies: map[string][]reply{},
		readDone: make(chan struct{}), stderr: nmclient.NewLogTail(256 << 10),
	}
	// Frames above the limit are read on (up to a size that can only be
	// garbage) and reported, like every other violation, at the end.
	c, err := nmclient.Start(hostBin, nmclient.WithOrigin(origin), nmclient.WithEnv(env), nmclient.WithDir(dir),
		nmclient.WithStderr(h.stderr), nmclient.WithMaxFrame(256<<20),
		nmclient.WithViolations(func(err error) { h.violate("%v", err) }))
	if err != nil {
		t.Fatalf("start host: %v", err)
	}
	h.c = c
	go h.read()
	t.Cleanup(h.cleanup)
	return h
}

// use makes the host report failures on t (a subtest) until t ends.
func (h *host) use(t *testing.T) {
	prev := h.t
	h.t = t
	t.Cleanup(func() { h.t = prev })
}

// cleanup stops the host if the test did not, reports protocol violations
// seen on stdout, and kills any process left behind (orphans are asserted by
// TestStdinCloseStopsEverything; here they are only cleaned up).
func (h *host) cleanup() {
	if h.c.Stop(10 * time.Second) {
		h.t.Errorf("host did not exit within 10 s of stdin closing; killed it")
	}
	for _, pid := range markedProcesses(h.mark) {
		h.t.Logf("killing leftover process %d", pid)
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
	select {
	case <-h.readDone:
	case <-time.After(10 * time.Second):
		h.t.Errorf("host's stdout still open 10 s after it exited")
	}
	h.mu.Lock()
	for _, v := range h.violations {
		h.t.Errorf("stdout protocol violation: %s", v)
	}
	h.mu.Unlock()
	if h.t.Failed() {
		h.t.Logf("host stderr (tail):\n%s", h.stderr.String())
	}
}

// read files the host's messages as replies (by id) and events until
// stdout ends, then checks how it ended and that no frame exceeded the limit.
func (h *host) read() {
	defer close(h.readDone)
	for m := range h.c.Messages() {
		if !m.Reply {
			// An event; request-scoped events carry the request's id.
			var ev event
			json.Unmarshal(m.Body, &ev)
			ev.raw = m.Body
			h.mu.Lock()
			h.events = append(h.events, ev)
			h.notify()
			h.mu.Unlock()
			continue
		}
		h.deliver(m.Body, m.Frames)
	}
	if err := h.c.Err(); !errors.Is(err, io.EOF) {
		h.violate("stdout ended inside a frame: %v", err)
	}
	if n := h.c.Stats().Largest; n > h.limit {
		h.violate("frame of %d bytes exceeds the %d-byte limit", n, h.limit)
	}
}

func (h *host) deliver(body []byte, frames int) {
	var r reply
	if err := json.Unmarshal(body, &r); err != nil {
		h.violate("reply is not valid JSON: %v: %s", err, clip(body))
		return
	}
	r.raw, r.frames = body, frames
	key := string(bytes.TrimSpace(r.ID))
	h.mu.Lock()
	defer h.mu.Unlock()
	if key == "null" || key == "" {
		h.nulls = append(h.nulls, r)
	} else {
		h.replies[key] = append(h.replies[key], r)
	}
	h.notify()
}

// notify wakes every waiter; h.mu must be held.
func (h *host) notify() {
	close(h.changed)
	h.changed = make(chan struct{})
}

func (h *host) violate(format string, args ...any) {
	h.mu.Lock()
	h.violations = append(h.violations, fmt.Sprintf(format, args...))
	h.mu.Unlock()
}

// waitFor waits until cond (called with h.mu held) holds, stdout ends, or the timeout passes.
func (h *host) waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.After(timeout)
	for {
		h.mu.Lock()
		ok := cond()
		ch := h.changed
		h.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-deadline:
			return false
		case <-h.readDone:
			h.mu.Lock()
			ok := cond()
			h.mu.Unlock()
			return ok
		}
	}
}

// writeFrame sends one frame with body b.
func (h *host) writeFrame(b []byte) {
	h.t.Helper()
	if err := h.c.Send(b); err != nil {
		h.t.Fatalf("write to host: %v", err)
	}
}

// writeRaw writes bytes to the host's stdin as they are.
func (h *host) writeRaw(b []byte) {
	h.t.Helper()
	if err := h.c.SendRaw(b); err != nil {
		h.t.Fatalf("write to host: %v", err)
	}
}

// send sends a request with a fresh numeric id and returns that id's key.
func (h *host) send(method string, params any) string {
	h.t.Helper()
	id, err := h.c.Request(method, params)
	if err != nil {
		h.t.Fatalf("write to host: %v", err)
	}
	return id
}

// sendID sends a request with the given id.
func (h *host) sendID(id any, method string, params any) {
	h.t.Helper()
	if err := h.c.RequestID(id, method, params); err != nil {
		h.t.Fatalf("write to host: %v", err)
	}
}

// await returns the reply to the request whose id marshals to key.
func (h *host) await(key string) reply {
	h.t.Helper()
	var r reply
	ok := h.waitFor(replyTimeout, func() bool {
		if len(h.replies[key]) == 0 {
			return false
		}
		r = h.replies[key][0]
		h.replies[key] = h.replies[key][1:]
		return true
	})
	if !ok {
		h.t.Fatalf("no reply to request %s within %v (host exited: %v)", key, replyTimeout, h.hasExited())
	}
	return r
}

// has reports whether a reply to key has arrived, without consuming it.
func (h *host) has(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.replies[key]) > 0
}

// awaitNull returns the next reply with "id": null.
func (h *host) awaitNull() reply {
	h.t.Helper()
	var r reply
	ok := h.waitFor(replyTimeout, func() bool {
		if len(h.nulls) == 0 {
			return false
		}
		r = h.nulls[0]
		h.nulls = h.nulls[1:]
		return true
	})
	if !ok {
		h.t.Fatalf("no reply with id null within %v (host exited: %v)", replyTimeout, h.hasExited())
	}
	return r
}

// call sends a request and waits for its reply.
func (h *host) call(method string, params any) reply {
	h.t.Helper()
	return h.await(h.send(method, params))
}

// execute runs a capability with no origin (as the side panel does).
func (h *host) execute(capability string, args any) reply {
	h.t.Helper()
	return h.call("execute", executeParams(capability, args, ""))
}

func executeParams(capability string, args any, origin string) map[string]any {
	p := map[string]any{"capability": capability}
	if args != nil {
		p["arguments"] = args
	}
	if origin != "" {
		p["origin"] = origin
	}
	return p
}

// eventMark is the number of events received so far, to wait for later ones.
func (h *host) eventMark() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.events)
}

// awaitEvent returns the first event after mark that matches.
func (h *host) awaitEvent(mark int, what string, match func(event) bool) event {
	h.t.Helper()
	var ev event
	ok := h.waitFor(replyTimeout, func() bool {
		for _, e := range h.events[mark:] {
			if match(e) {
				ev = e
				return true
			}
		}
		return false
	})
	if !ok {
		h.mu.Lock()
		var seen []string
		for _, e := range h.events[mark:] {
			seen = append(seen, string(e.raw))
		}
		h.mu.Unlock()
		h.t.Fatalf("no %s event within %v; events seen: %v", what, replyTimeout, seen)
	}
	return ev
}

// eventsSince returns a copy of the events after mark.
func (h *host) eventsSince(mark int) []event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]event(nil), h.events[mark:]...)
}

// closeStdin closes the browser's side of the port.
func (h *host) closeStdin() { h.c.CloseInput() }

// waitExit waits for the host to exit and returns its exit code.
func (h *host) waitExit(timeout time.Duration) (code int, ok bool) {
	select {
	case <-h.c.Exited():
		return h.c.ExitCode(), true
	case <-time.After(timeout):
		return -1, false
	}
}

func (h *host) hasExited() bool {
	select {
	case <-h.c.Exited():
		return true
	default:
		return false
	}
}

// awaitReady polls health until every provider is ready.
func (h *host) awaitReady() {
	h.t.Helper()
	testwait.Until(h.t, replyTimeout, func() error {
		r := h.call("health", nil)
		var hr healthReply
		json.Unmarshal(r.raw, &hr)
		if r.OK && hr.Status == "ok" {
			return nil
		}
		return fmt.Errorf("providers not ready: %s", r.raw)
	})
}

// healthReply is the health method's reply.
type healthReply struct {
	OK           bool             `json:"ok"`
	Status       string           `json:"status"`
	Service      string           `json:"service"`
	Version      string           `json:"version"`
	Capabilities int              `json:"capabilities"`
	Error        string           `json:"error"`
	Providers    []providerHealth `json:"providers"`
}

type providerHealth struct {
	Name         string `json:"name"`
	Prefix       string `json:"prefix"`
	State        string `json:"state"`
	Capabilities int    `json:"capabilities"`
	Error        string `json:"error"`
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// clip shortens b for messages.
func clip(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + fmt.Sprintf("... (%d bytes)", len(b))
	}
	return string(b)
}

package session

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gnosis/gnosis/host/chunk"
	"github.com/gnosis/gnosis/host/framing"
	"github.com/gnosis/gnosis/runtime"
)

// toyProvider is a real runtime.Provider living in the test process: the
// session is tested against the real runtime, only the tool server is small.
type toyProvider struct {
	notify  func(runtime.Change)
	closed  atomic.Bool
	started chan string // names of calls that began, for ordering tests
	tools   []runtime.Tool
	mu      sync.Mutex
}

func newToy() *toyProvider {
	return &toyProvider{
		started: make(chan string, 16),
		tools: []runtime.Tool{
			{Name: "echo", Description: "Echo text.", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
			{Name: "slow", Description: "Wait until cancelled.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			{Name: "fail", Description: "Fail as a tool.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			{Name: "big", Description: "Return n bytes of mixed text.", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
		},
	}
}

func (p *toyProvider) Name() string   { return "toy" }
func (p *toyProvider) Prefix() string { return "toy" }
func (p *toyProvider) Start(ctx context.Context, notify func(runtime.Change)) error {
	p.notify = notify
	notify(runtime.Change{Provider: "toy", Prefix: "toy", Status: runtime.Status{State: runtime.StateReady}, ToolsChanged: true})
	return nil
}
func (p *toyProvider) Tools() []runtime.Tool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]runtime.Tool(nil), p.tools...)
}
func (p *toyProvider) Status() runtime.Status { return runtime.Status{State: runtime.StateReady} }
func (p *toyProvider) Close() error           { p.closed.Store(true); return nil }

// addTool changes the tool list as an MCP list_changed would.
func (p *toyProvider) addTool(name string) {
	p.mu.Lock()
	p.tools = append(p.tools, runtime.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)})
	p.mu.Unlock()
	p.notify(runtime.Change{Provider: "toy", Prefix: "toy", Status: runtime.Status{State: runtime.StateReady}, ToolsChanged: true})
}

func (p *toyProvider) Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	p.started <- tool
	var a struct {
		Text string `json:"text"`
		N    int    `json:"n"`
	}
	_ = json.Unmarshal(args, &a)
	switch tool {
	case "echo":
		return json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": a.Text}}})
	case "slow":
		<-ctx.Done()
		return nil, ctx.Err()
	case "fail":
		return json.RawMessage(`{"content":[{"type":"text","text":"no window"}],"isError":true}`), nil
	case "big":
		return json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": bigText(a.N)}}})
	}
	return nil, errors.New("no such tool")
}

// bigText is n bytes of text mixing ASCII, multi-byte runes and characters
// JSON must escape.
func bigText(n int) string {
	const unit = "ab\"c\\d\né€😀<>\x01" // 24 bytes
	b := make([]byte, 0, n+len(unit))
	for len(b) < n {
		b = append(b, unit...)
	}
	return string(b)
}

// host is a session serving over in-memory pipes, with a reader that
// reassembles chunked replies and checks frames never interleave.
type host struct {
	t      *testing.T
	s      *Session
	toy    *toyProvider
	in     *io.PipeWriter
	msgs   chan map[string]any
	raw    chan []byte // every frame as written
	served chan error
	limit  int
}

func startHost(t *testing.T, opts ...Option) *host {
	t.Helper()
	s := New(append([]Option{WithVersion("1.2.3")}, opts...)...)
	toy := newToy()
	// These tests are about the session: the policy allows every call.
	allowAll := runtime.Policy{Default: runtime.Rule{Allow: []string{"*"}}}
	rt := runtime.New(runtime.WithProvider(toy), runtime.WithEvents(s.Event), runtime.WithPolicy(allowAll))
	if err := rt.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := serve(t, s, rt)
	h.toy = toy
	return h
}

// serve runs s over rt with pipes a test drives through the returned host.
func serve(t *testing.T, s *Session, rt Runtime) *host {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &host{t: t, s: s, in: inW, msgs: make(chan map[string]any, 64), raw: make(chan []byte, 1024), served: make(chan error, 1), limit: s.maxFrame}
	go func() {
		h.served <- s.Serve(context.Background(), rt, inR, outW)
		outW.Close()
	}()
	go h.readAll(outR)
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-h.served:
		case <-time.After(3 * time.Second):
			t.Error("Serve did not return after input closed")
		}
	})
	return h
}

func (h *host) readAll(out io.Reader) {
	defer close(h.msgs)
	r := framing.NewReader(out, 0)
	var j chunk.Joiner
	var open *chunk.Frame // the chunked reply being received
	for {
		body, err := r.Read()
		if err != nil {
			return
		}
		select {
		case h.raw <- body:
		default:
		}
		if len(body) > h.limit {
			h.t.Errorf("frame of %d bytes above limit %d", len(body), h.limit)
		}
		var f chunk.Frame
		if json.Unmarshal(body, &f) == nil && f.Chunk != nil {
			if open != nil && (string(open.ID) != string(f.ID) || *f.Chunk != *open.Chunk+1) {
				h.t.Errorf("chunk frames interleaved: after chunk %d of %s came %s", *open.Chunk, open.ID, body[:min(len(body), 80)])
			}
			open = &f
			if *f.Chunk == f.Chunks-1 {
				open = nil
			}
		} else if open != nil {
			h.t.Errorf("frame between chunks: %s", body[:min(len(body), 80)])
		}
		msg, err := j.Add(body)
		if err != nil {
			h.t.Errorf("joining: %v", err)
			continue
		}
		if msg == nil {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(msg, &m); err != nil {
			h.t.Errorf("message is not JSON: %v: %.200s", err, msg)
			continue
		}
		h.msgs <- m
	}
}

// send writes one request frame (any JSON text).
func (h *host) send(body string) {
	h.t.Helper()
	if err := framing.Write(h.in, []byte(body)); err != nil {
		h.t.Fatalf("writing request: %v", err)
	}
}

// next returns the next message that is not a runtime event.
func (h *host) next() map[string]any {
	h.t.Helper()
	for {
		select {
		case m, ok := <-h.msgs:
			if !ok {
				h.t.Fatal("output closed")
			}
			if _, isEvent := m["event"]; isEvent && m["id"] == nil {
				continue
			}
			return m
		case <-time.After(20 * time.Second):
			h.t.Fatal("no reply within 20 s")
		}
	}
}

// nextEvent returns the next message with no id and an "event" field.
func (h *host) nextEvent(kind string) map[string]any {
	h.t.Helper()
	for {
		select {
		case m := <-h.msgs:
			if m["event"] == kind && m["id"] == nil {
				return m
			}
		case <-time.After(5 * time.Second):
			h.t.Fatalf("no %s event within 5 s", kind)
		}
	}
}

// call sends a request and returns its reply (replies of other ids are kept
// out of the way by tests that send one request at a time).
func (h *host) call(body string) map[string]any {
	h.t.Helper()
	h.send(body)
	return h.next()
}

package runtime

import (
	"context"
	"encoding/json"
	"sync"
)

// fakeProvider is an in-test Provider: the runtime's routing, registry and
// events are tested against it; the real MCP provider has its own tests.
type fakeProvider struct {
	name, prefix string

	mu     sync.Mutex
	tools  []Tool
	status Status
	notify func(Change)
	calls  []fakeCall
	result json.RawMessage
	err    error
	block  bool // Call waits for ctx to end
}

type fakeCall struct {
	Tool string
	Args string
}

func newFake(name, prefix string, tools ...Tool) *fakeProvider {
	return &fakeProvider{name: name, prefix: prefix, tools: tools, status: Status{State: StateStarting}, result: json.RawMessage(`{"content":[]}`)}
}

func (f *fakeProvider) Name() string   { return f.name }
func (f *fakeProvider) Prefix() string { return f.prefix }

func (f *fakeProvider) Start(ctx context.Context, notify func(Change)) error {
	f.mu.Lock()
	f.notify = notify
	f.mu.Unlock()
	return nil
}

// set changes the fake's state (and tools, when non-nil) and reports it.
func (f *fakeProvider) set(st Status, tools []Tool) {
	f.mu.Lock()
	f.status = st
	if tools != nil {
		f.tools = tools
	}
	n := f.notify
	f.mu.Unlock()
	n(Change{Provider: f.name, Prefix: f.prefix, Status: st, ToolsChanged: tools != nil})
}

func (f *fakeProvider) Tools() []Tool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Tool(nil), f.tools...)
}

func (f *fakeProvider) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status
}

func (f *fakeProvider) Call(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	f.mu.Lock()
	f.calls = append(f.calls, fakeCall{tool, string(args)})
	res, err, block := f.result, f.err, f.block
	f.mu.Unlock()
	if block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return res, err
}

func (f *fakeProvider) Close() error { return nil }

func (f *fakeProvider) lastCall() fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return fakeCall{}
	}
	return f.calls[len(f.calls)-1]
}

func (f *fakeProvider) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gnosis/gnosis/runtime/wire"
)

// lazySchema is one of a capability's schemas, its inputSchema or its
// outputSchema, compiled once: in the background right after discovery
// (precompile), or by the first call that needs it, whichever comes first;
// the other waits for it. Registries built from the same tool list share
// it. A schema that does not compile makes its tool unavailable: a call is
// never run with its arguments, or returned with its result, unchecked.
type lazySchema struct {
	raw    json.RawMessage
	name   string // the capability's, for the log
	kind   string // "inputSchema" or "outputSchema"
	assert bool   // its provider's configuration asserts formats in every dialect
	once   sync.Once
	done   atomic.Pointer[compileResult]
}

type compileResult struct {
	schema Schema
	err    error
}

func newLazySchema(raw json.RawMessage, capability, kind string, assert bool) *lazySchema {
	return &lazySchema{raw: raw, name: capability, kind: kind, assert: assert}
}

// same reports whether ls is compiled from raw as asked, so that a new
// registry may keep it.
func (ls *lazySchema) same(raw json.RawMessage, assert bool) bool {
	return ls != nil && ls.assert == assert && bytes.Equal(ls.raw, raw)
}

// compile returns ls compiled, compiling it the first time. The outcome is
// logged then, once: why it failed, or what its compilation left out
// (Warnings).
func (r *Runtime) compile(ls *lazySchema) (Schema, error) {
	ls.once.Do(func() {
		v := r.validator
		if ls.assert {
			v = r.asserting
		}
		s, err := v.Compile(ls.raw)
		if err != nil {
			s = nil
			r.log.Warn().Err(err).Str("capability", ls.name).Msg(ls.kind + " cannot be used; the tool is unavailable")
		} else if w, ok := s.(interface{ Warnings() []string }); ok {
			for _, msg := range w.Warnings() {
				r.log.Warn().Str("capability", ls.name).Msg(ls.kind + msg)
			}
		}
		ls.done.Store(&compileResult{s, err})
	})
	c := ls.done.Load()
	return c.schema, c.err
}

// compiled reports whether ls has been compiled (it may have failed).
func (ls *lazySchema) compiled() bool { return ls.done.Load() != nil }

// checks is what the compiled schema tells of its checks; nil before it
// has compiled, or when it did not.
func (ls *lazySchema) checks() *Checks {
	if ls == nil {
		return nil
	}
	if c := ls.done.Load(); c != nil && c.err == nil {
		return checksOf(c.schema)
	}
	return nil
}

// failed is the compile error of ls once it has been compiled; nil before,
// or when it compiled.
func (ls *lazySchema) failed() error {
	if ls == nil {
		return nil
	}
	if c := ls.done.Load(); c != nil {
		return c.err
	}
	return nil
}

// InvalidSchema is the details reason of a call refused because the
// tool's inputSchema or outputSchema cannot be used (it does not compile,
// passes the bounds of schemabounds.go, or cannot be evaluated).
const InvalidSchema = "invalid-schema"

// schemaUnusable is the EXECUTION_ERROR of a call whose tool has a schema
// that cannot be used. result is the tool's result when the call ran (an
// outputSchema that could not be evaluated), nil otherwise.
func schemaUnusable(capability, kind string, err error, result json.RawMessage) *wire.Error {
	d := struct {
		Reason string          `json:"reason"`
		Result json.RawMessage `json:"result,omitempty"`
	}{InvalidSchema, result}
	return &wire.Error{Code: wire.CodeExecutionError, Message: fmt.Sprintf("%s is unavailable: its %s cannot be used: %v", capability, kind, err),
		Details: d}
}

// unusableReason is Summary.Unavailable for a tool whose schema failed.
func unusableReason(kind string, err error) string {
	return fmt.Sprintf("its %s cannot be used: %v", kind, err)
}

// precompile compiles the schemas of a new tool list in the background;
// when one fails, the registry is rebuilt so that capabilities.list shows
// the tool unavailable, and capabilities.changed is sent.
func (r *Runtime) precompile(schemas []*lazySchema) {
	failed := false
	for _, ls := range schemas {
		if r.closed.Load() {
			return
		}
		if _, err := r.compile(ls); err != nil {
			failed = true
		}
	}
	if !failed {
		return
	}
	r.mu.Lock()
	reg, _ := r.buildRegistry(r.reg.Load())
	r.reg.Store(reg)
	r.mu.Unlock()
	r.emit(Event{Kind: EventCapabilitiesChanged, Capabilities: len(reg.list)})
}

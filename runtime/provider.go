package runtime

import (
	"context"
	"encoding/json"
)

// Tool is one tool as a provider reports it. InputSchema is the raw JSON the
// provider sent, byte for byte: describe and validation must see every keyword
// ($defs, oneOf, $schema, ...), which typed decoders drop.
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	// Title is the tool's human-readable name, "" when it has none.
	Title string
	// Annotations are the tool's behaviour hints (readOnlyHint,
	// destructiveHint, ...) as sent; nil when it has none.
	Annotations json.RawMessage
	// Raw is the whole tool object as the provider sent it (outputSchema,
	// icons, _meta and whatever later versions of MCP add).
	Raw json.RawMessage
}

// State is a provider's lifecycle state as reported by health and events.
type State string

// Provider states.
const (
	StateStarting State = "starting"
	StateReady    State = "ready"
	StateDown     State = "down"
)

// Status is a provider's state and, when the last start or run failed, why.
type Status struct {
	State State
	Err   string
}

// Provider is a source of tools, such as an MCP server over stdio. The runtime
// depends on this interface, not on MCP.
//
// Change reporting: the runtime passes a notify function to Start, and the
// provider calls it (from any goroutine, never while holding a lock the
// runtime could need) whenever its Status or its tool list changes. Calls for
// one provider must be serialised by the provider, so the runtime sees its
// changes in order.
type Provider interface {
	// Name identifies the provider in health and logs ("munim").
	Name() string
	// Prefix is prepended to its tool names: "<prefix>.<tool>".
	Prefix() string
	// Start launches the provider in the background and keeps it running
	// (supervised) until Close. It returns at once: the provider reports
	// starting → ready (or down) through notify. ctx must be long-lived;
	// cancelling it stops the provider like Close.
	Start(ctx context.Context, notify func(Change)) error
	// Tools returns the tools discovered at the last successful discovery.
	// They stay available while the provider restarts.
	Tools() []Tool
	// Status reports the current state.
	Status() Status
	// Call runs a tool. The result is the provider's raw result JSON (for MCP,
	// the CallToolResult). A tool-level failure (isError) is returned as a
	// result, not an error; the runtime decides how to report it. Errors
	// should be *wire.Error with TIMEOUT, CANCELLED, PROVIDER_UNAVAILABLE or
	// EXECUTION_ERROR. Cancelling ctx must cancel the call at the provider.
	Call(ctx context.Context, tool string, arguments json.RawMessage) (json.RawMessage, error)
	// Close stops the provider and everything it started.
	Close() error
}

// AsyncCaller is implemented by a provider that can run a call without a
// goroutine waiting on it (the MCP provider does). CallAsync starts the call
// Call would make and returns; done receives what Call would return, exactly
// once, from any goroutine (the one reading the provider's messages, for the
// MCP provider). The runtime uses it when a provider has it: an execute then
// holds no goroutine while the tool runs, and none is woken to end it.
type AsyncCaller interface {
	CallAsync(ctx context.Context, tool string, arguments json.RawMessage, done func(json.RawMessage, error))
}

// Await starts an asynchronous call with start and waits for its outcome:
// the blocking form of an AsyncCaller or of Runtime.ExecuteAsync.
func Await(start func(done func(json.RawMessage, error))) (json.RawMessage, error) {
	type outcome struct {
		result json.RawMessage
		err    error
	}
	ch := make(chan outcome, 1)
	start(func(result json.RawMessage, err error) { ch <- outcome{result, err} })
	o := <-ch
	return o.result, o.err
}

// Change is what a provider reports to the runtime: its state changed, or its
// tool list changed (after list_changed or a re-discovery).
type Change struct {
	Provider     string
	Prefix       string
	Status       Status
	ToolsChanged bool
}

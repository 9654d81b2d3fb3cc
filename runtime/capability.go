package runtime

import (
	"context"
	"encoding/json"
)

// Capability is one thing the runtime can execute: a provider's tool under
// its "<prefix>.<tool>" name, or a meta-capability of the runtime itself.
type Capability struct {
	Name        string
	Description string
	// InputSchema is the schema exactly as the provider sent it.
	InputSchema json.RawMessage
	// Provider is the owning provider's name, "" for meta-capabilities.
	Provider string
	// Title, Annotations and Tool are the provider's tool's title, hints and
	// whole object as sent (see Tool); empty for meta-capabilities.
	Title       string
	Annotations json.RawMessage
	Tool        json.RawMessage
	// Unavailable says why the capability cannot run through this host
	// (as Summary.Unavailable: its input or output schema cannot be used,
	// and why), "" when it can.
	Unavailable string
	// Checks says what the host checks of its arguments, once its
	// inputSchema has compiled (nil before, or when there is nothing to
	// say: no format, every part checked).
	Checks *Checks
}

// Summary is a capability as capabilities.list shows it: what a grant UI
// and a prompt need to present it (the title and the behaviour hints).
type Summary struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Title       string          `json:"title,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	// Unavailable says why the capability cannot run through this host (a
	// tool that requires MCP tasks, or whose input or output schema cannot
	// be used), "" when it can.
	Unavailable string `json:"unavailable,omitempty"`
}

// Call is one execute request.
type Call struct {
	Capability string
	// Arguments must be a JSON object; nil means {}.
	Arguments json.RawMessage
	// Origin is the web page the call came from, "" when it did not come
	// from a page (the extension itself, the CLI). Policy decides on it.
	Origin string
	// ID is the front end's request id, used only in the execute log line.
	ID string
	// Approve asks the user whether this call may run, when the policy says
	// "ask" for it. It returns nil when the user allowed it, or a *wire.Error
	// (FORBIDDEN when denied or unanswered, CANCELLED). nil means the caller
	// cannot ask anyone, and such calls are refused.
	Approve func(ctx context.Context, a Approval) error
}

// Names of the meta-capabilities, answered by the runtime itself.
const (
	MetaList     = "capabilities.list"
	MetaDescribe = "capabilities.describe"
)

// MetaPrefix is the meta-capabilities' prefix, reserved: no provider may use it.
const MetaPrefix = metaPrefix

const metaPrefix = "capabilities"

var metaCapabilities = []Capability{
	{
		Name:        MetaList,
		Description: "List every capability (name and description), sorted by name, meta-capabilities included.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
	},
	{
		Name:        MetaDescribe,
		Description: "Describe one capability: its name, description and input schema exactly as its provider sent it.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The capability's name."}},"required":["name"],"additionalProperties":false}`),
	},
}

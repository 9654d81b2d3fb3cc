package runtime

import "encoding/json"

// Capability is one thing the runtime can execute: a provider's tool under
// its "<prefix>.<tool>" name, or a meta-capability of the runtime itself.
type Capability struct {
	Name        string
	Description string
	// InputSchema is the schema exactly as the provider sent it.
	InputSchema json.RawMessage
	// Provider is the owning provider's name, "" for meta-capabilities.
	Provider string
}

// Summary is a capability as capabilities.list shows it.
type Summary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
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
}

// Names of the meta-capabilities, answered by the runtime itself.
const (
	MetaList     = "capabilities.list"
	MetaDescribe = "capabilities.describe"
)

// metaPrefix is reserved: no provider may use it.
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

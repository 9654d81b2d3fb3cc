// Package runtime is the Agent Capability Runtime: it turns the tools of
// providers (MCP servers such as Munim) into named capabilities
// "<prefix>.<tool>", answers the meta-capabilities capabilities.list and
// capabilities.describe, checks per-origin policy, validates arguments against
// each capability's input schema, and routes execution to the owning provider.
//
// The runtime knows nothing about how requests arrive: the native-messaging
// host (package host/...) is one front end; tests drive it directly.
package runtime

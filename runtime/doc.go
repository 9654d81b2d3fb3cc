// Package runtime is the Agent Capability Runtime: it turns the tools of
// providers (MCP servers such as Munim) into named capabilities
// "<prefix>.<tool>", answers the meta-capabilities capabilities.list and
// capabilities.describe, checks per-origin policy, validates arguments against
// each capability's input schema, and routes execution to the owning provider.
//
// The runtime knows nothing about how requests arrive: the native-messaging
// host (package host/...) is one front end; tests drive it directly.
//
// # Shape
//
// A Runtime is built with New and options (WithProvider, WithPolicy,
// WithValidator, WithLogger, WithEvents, WithDegraded), started once with
// Start, and stopped with Close. Providers implement Provider; the MCP stdio
// provider lives in runtime/mcpprovider. Start hands each provider a notify
// function, and the provider calls it whenever its Status or its tool list
// changes; the runtime then rebuilds an immutable registry snapshot (so
// List, Describe and Execute never wait on a lock held across I/O), compiles
// each new input schema once, and emits Events (capabilities.changed,
// provider.state) to the WithEvents callback.
//
// A provider's tools stay registered while it restarts, so a call in that
// window fails with PROVIDER_UNAVAILABLE rather than CAPABILITY_NOT_FOUND.
//
// ExecuteAsync runs the checks and starts a call without waiting for it;
// a provider that implements AsyncCaller (the MCP provider does) ends it
// from the goroutine that reads its server, so a call in flight holds no
// goroutine. Execute is ExecuteAsync waited for.
//
// # Errors
//
// Every failure Execute and Describe return is a *wire.Error whose Code is one
// of the stable protocol codes of docs/protocol.md; front ends turn it into
// a reply in one place.
//
// # Schemas
//
// Schemas are kept byte for byte as the provider sent them (Describe returns
// those bytes). Validation uses a Validator, by default runtime/schema's
// (NewValidator), exact to the JSON Schema specification and safe for
// schemas the host does not control: no reference is ever fetched from the
// network or the disk, no schema can make validation recurse without
// bound, every pattern match is bounded, and a schema past the bounds of
// runtime/schema/bounds.go fails at once. A tool whose input or output
// schema cannot be used is listed unavailable and never called: no call
// runs, and no result returns, unchecked.
//
// # Tool names
//
// A tool becomes a capability only under a name the user can read for what
// it is (toolname.go); Health lists the tools skipped, and why.
package runtime

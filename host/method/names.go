package method

// Names is every protocol method the host serves, in the order
// docs/protocol.md and docs/host-methods.md describe them: the session's
// own, then the workspace's, the relay's, the grants' and the providers'.
// It is the one list the extension's table of method names
// (extension/shared/core/methods.js) is checked against, name for name
// and in order (extension_methods_test.go); cmd/gnosis-host's test checks
// that the host answers every one of them, and that the parts' Tables
// serve none that is missing here.
var Names = []string{
	"health",
	"capabilities.list",
	"capabilities.describe",
	"execute",
	"cancel",
	"report",
	"workspace.info",
	"workspace.list",
	"workspace.read",
	"workspace.create",
	"workspace.append",
	"workspace.commit",
	"workspace.abort",
	"relay.fetch",
	"policy.get",
	"policy.set",
	"approve",
	"providers.list",
	"providers.set",
	"providers.remove",
	"providers.check",
}

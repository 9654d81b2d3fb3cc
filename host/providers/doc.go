// Package providers lets the user add, edit, remove and try the MCP servers
// the host runs, from the extension's setup page instead of a terminal.
//
// It serves four host methods (docs/host-methods.md): providers.list (each
// configured server with its live state, tools, error and stderr),
// providers.set (add or replace one), providers.remove and providers.check
// (start a program as an MCP server, list its tools, stop it, and say what
// was found). Changes are validated strictly, written into the config file
// atomically with every other setting kept, and applied to the running
// runtime at once, which starts or stops the server and reports it through
// provider.state and capabilities.changed events; the host does not restart.
//
// Environment values are secrets as often as not (API keys): they are never
// logged and never sent back; providers.list names the variables only, and
// providers.set keeps a variable's stored value when it is given as null.
// The extension calls these methods only from its own pages (its router
// refuses them from content scripts), as for the grant methods.
package providers

// Package mcpprovider is a runtime.Provider for an MCP server spoken to over
// stdio (Munim, or any MCP stdio command), built on mark3labs/mcp-go.
//
// It owns the child process: it starts it in its own process group (a job
// object on Windows) so that stopping it stops everything it spawned;
// supervises it, restarting with capped exponential backoff when it dies and
// re-discovering its tools; logs its stderr line by line; and reads tools/list
// and tools/call raw, so tool schemas and results reach the runtime byte for
// byte (mcp-go's typed ListTools drops schema keywords such as oneOf, $defs
// and $schema).
package mcpprovider

package runtime

import "time"

// DefaultCallTimeout bounds one tool call of a provider whose configuration
// sets no limit of its own. It is the one default: the MCP provider applies
// it, the host's configuration fills it in, and health reports it
// (callTimeoutMs), so the extension waits exactly as long as the host does.
// Two minutes leaves room for a computer-use action (an app to start, a
// screenshot of a large display) without leaving a hung server unnoticed.
const DefaultCallTimeout = 120 * time.Second

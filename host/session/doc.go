// Package session serves the native-messaging protocol of docs/protocol.md
// over one pair of streams (the host's stdin and stdout).
//
// One goroutine reads frames and decodes requests; each request runs in its
// own goroutine, so a slow tool never holds up health or cancel (the built-in
// methods that cannot block, health, capabilities.list, capabilities.describe
// and cancel, are answered on the reader itself, saving two hand-offs); one writer
// goroutine owns the output stream, so frames never interleave and a chunked
// reply's frames go out back to back. Every failure, whatever its source, is
// turned into the protocol's error reply in one place (reply.go).
//
// Methods live in a table. The built-in ones (health, capabilities.list,
// capabilities.describe, execute, cancel) sit beside those other parts of the
// host add with WithMethod.
package session

// Package session serves the native-messaging protocol of docs/protocol.md
// over one pair of streams (the host's stdin and stdout).
//
// One goroutine at a time reads frames and decodes requests. The built-in
// methods that cannot block (health, capabilities.list, capabilities.describe
// and cancel) are answered by the reader itself. Any other request runs on
// the goroutine that read it, which first passes the reading on to another
// (pooled) goroutine: a slow tool never holds up health or cancel, and no
// thread has to be woken to start the request. Output goes through one
// mutex-guarded writer: a request's goroutine writes its own events and
// reply, and a writer goroutine writes the reader's replies and runtime
// events (so the reader never blocks on the output). A message is written
// whole, so frames never interleave and a chunked reply's frames go out back
// to back. Every failure, whatever its source, is
// turned into the protocol's error reply in one place (reply.go).
//
// The bytes held for requests in flight are bounded (WithMaxInflightBytes):
// a frame's length is checked against the budget before its body is
// allocated, and a request that does not fit is read in small pieces,
// dropped and answered OVERLOADED (inflight.go). A request's bytes count
// until its reply is written, and replies waiting to be written count too.
//
// Methods live in a table. The built-in ones (health, capabilities.list,
// capabilities.describe, execute, cancel) sit beside those other parts of the
// host add with WithMethod.
package session

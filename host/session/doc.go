// Package session serves the native-messaging protocol of docs/protocol.md
// over one pair of streams (the host's stdin and stdout).
//
// One goroutine reads frames and decodes requests. The built-in methods
// that cannot block (health, capabilities.list, capabilities.describe and
// cancel) are answered by the reader itself. execute is an AsyncMethod: the
// reader starts it (the runtime's admission checks) and goes back to
// reading; the runtime validates the arguments on a goroutine of its own
// (never the reader's, however long a hostile schema makes that: it ends
// at the call's step budget, or at a cancel) and writes the request to the
// provider; the provider's reader, on the server's answer, runs the rest
// and writes the reply. So an execute in flight holds no goroutine, and
// none is woken to answer it. A request larger than 16 KiB starts on a
// pooled goroutine instead, so reading it never holds up the requests
// behind it, and so do the methods other parts of the host add
// (WithMethod), which run and reply there: a slow method never holds up
// health or cancel. A request that cannot be decoded (not UTF-8, nested
// too deep) is answered under its own id when a scan of it finds one.
//
// Output goes through one mutex-guarded writer: a request that has left the
// reader writes its own events and reply, and a writer goroutine writes what
// the reader produces and runtime events (so the reader never blocks on the
// output). A message is written whole, so frames never interleave and a
// chunked reply's frames go out back to back. Every failure, whatever its
// source, is turned into the protocol's error reply in one place (reply.go).
//
// The bytes held for requests in flight are bounded (WithMaxInflightBytes):
// a frame's length is checked against the budget before its body is
// allocated, and a request that does not fit is read in small pieces,
// dropped and answered OVERLOADED (inflight.go). A request's bytes count
// until its reply is written, and replies waiting to be written count too.
// A method that builds a large reply reserves it first (budget.Reserve)
// against a reply budget of its own, and waits its turn (reserve.go).
//
// Methods live in a table. The built-in ones (health, capabilities.list,
// capabilities.describe, execute, cancel) sit beside those other parts of the
// host add with WithMethod.
package session

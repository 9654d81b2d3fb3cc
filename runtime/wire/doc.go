// Package wire holds the error codes a protocol reply carries (the "code"
// field of docs/protocol.md) and Error, the Go error that carries one.
//
// The codes are shared by every part of the host that answers requests: the
// capability runtime, the session, the workspace and the relay. They live in
// this leaf package, which imports nothing of the project, so a front end or
// a host method can name a code without depending on the runtime.
//
// docs/protocol.md's "Error codes" table is the documented list; a test
// checks that it names exactly these constants, in the same order.
package wire

// Package nmclient is a native-messaging client: it does to gnosis-host what
// a browser does. It starts the host as Chrome starts it (our extension's
// origin as argv[1], the host's folder as working directory), writes request
// frames on its stdin, reads its stdout as frames (package framing), joins
// chunked replies (package chunk) and tells replies from events.
//
// It exists because several programs speak to the host exactly as a browser
// does and must not each carry their own copy of that logic: the CLI's
// `gnosis-host call`, doctor's self-test (package register), the end-to-end
// Go tests and the benchmark. Like Chrome, it treats a departure from the
// protocol (a frame above the limit, a frame that is not a JSON object,
// chunks out of sequence or interleaved) as the end of the conversation,
// unless the caller asks to hear about violations and read on (WithViolations),
// as the tests do to assert that stdout carries nothing but frames.
package nmclient

// Package framing reads and writes native-messaging frames: a 4-byte length in
// the machine's native byte order followed by that many bytes of JSON.
//
// It is deliberately tiny and pure (no goroutines, no JSON decoding) so it
// can be fuzzed and trusted: the length prefix arrives from another process,
// and a hostile or corrupted one must never make the host allocate gigabytes
// or lose track of where the next frame starts without saying so. For a
// body that cannot be decoded (not UTF-8, nested too deep), RequestID finds
// the caller's request id in one bounded pass, so the host answers the
// caller instead of an id of null (id.go).
package framing

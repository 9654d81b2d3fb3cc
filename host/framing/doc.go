// Package framing reads and writes native-messaging frames: a 4-byte length in
// the machine's native byte order followed by that many bytes of JSON.
//
// It is deliberately tiny and pure (no goroutines, no JSON) so it can be fuzzed
// and trusted: the length prefix arrives from another process, and a hostile or
// corrupted one must never make the host allocate gigabytes or lose track of
// where the next frame starts without saying so.
package framing

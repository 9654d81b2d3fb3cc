// Package chunk splits a reply too large for one native-messaging frame into
// consecutive chunk frames, and joins them back.
//
// Chrome closes the port when a host sends a frame above 1 MiB, so every frame
// the host writes must fit after JSON escaping of its payload. A chunk frame is
//
//	{"id":<id>,"chunk":<i>,"chunks":<n>,"data":"<i-th piece of the reply's JSON text>"}
//
// Pieces never split a UTF-8 sequence, and concatenating the data strings in
// order gives the reply's JSON text exactly. The package is pure: no I/O, no
// goroutines, so its guarantees are checked by property tests.
package chunk

// Package pipesize enlarges the buffer of the pipe the host's frames cross
// to the browser.
//
// Linux gives a pipe 64 KiB. A writer of a frame of a few hundred KiB (a
// desktop screenshot) then sleeps until the reader frees room and is woken
// for every page freed: Chrome reads a native host's output 4 KiB at a time,
// so a 350 KiB frame costs some 70 wake-ups of the host, each competing with
// the browser's own threads for the CPU. With the frame in the pipe at once
// the write returns and the browser reads undisturbed; the bytes, and their
// order, are the same.
package pipesize

// Frame is the buffer asked for: a whole frame of the browser's protocol
// (at most 1 MiB, Chrome's limit for a message from a host) fits in it.
const Frame = 1 << 20

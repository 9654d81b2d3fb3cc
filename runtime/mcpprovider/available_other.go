//go:build !linux

package mcpprovider

import "syscall"

// knowsAvailable tells that available does not work: only the background
// goroutine reads (reader.go).
const knowsAvailable = false

// available returns 0: nothing is known to wait unread.
func available(rc syscall.RawConn) int { return 0 }

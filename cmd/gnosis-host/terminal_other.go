//go:build !linux && !windows && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package main

// fromTerminal reports whether a person is at a terminal; here it cannot
// tell, so the one-click behaviour stays.
func fromTerminal(fd uintptr) bool { return false }

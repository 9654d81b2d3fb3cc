package main

import "golang.org/x/sys/unix"

// fromTerminal reports whether a person is at a terminal: stdin is one.
func fromTerminal(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	return err == nil
}

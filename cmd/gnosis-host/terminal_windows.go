package main

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

var getConsoleProcessList = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetConsoleProcessList")

// fromTerminal reports whether a person typed the command in a terminal:
// stdin is a console that other processes (the shell) share. A double-click
// in Explorer gives the program a console of its own, which keeps the
// one-click behaviour.
func fromTerminal(fd uintptr) bool {
	var mode uint32
	if windows.GetConsoleMode(windows.Handle(fd), &mode) != nil {
		return false
	}
	var pids [4]uint32
	n, _, _ := getConsoleProcessList.Call(uintptr(unsafe.Pointer(&pids[0])), uintptr(len(pids)))
	return n > 1
}

//go:build !linux

package pipesize

import "os"

// Widen does nothing here: only Linux lets a process size a pipe's buffer.
func Widen(*os.File, int) {}

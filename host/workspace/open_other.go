//go:build !unix

package workspace

import "os"

// openForRead opens rel for reading. Outside Unix a path in a folder names no
// FIFO whose opening waits, so a plain open is enough before the fstat.
func openForRead(root *os.Root, rel string) (*os.File, error) {
	return root.Open(rel)
}

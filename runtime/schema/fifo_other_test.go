//go:build !unix

package schema

func mkfifo(path string) error { return nil }

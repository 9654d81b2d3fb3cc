//go:build !unix

package runtime

func mkfifo(path string) error { return nil }

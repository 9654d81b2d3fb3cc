//go:build !windows

package workspace

// markFromInternet does nothing: the Mark-of-the-Web is a Windows (NTFS)
// alternate data stream.
func markFromInternet(string, []byte) error { return nil }

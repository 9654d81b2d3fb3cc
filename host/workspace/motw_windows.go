package workspace

import "os"

// markFromInternet writes the Mark-of-the-Web of the file at name: its
// Zone.Identifier alternate data stream. File systems without streams (FAT,
// some network shares) make it fail; the caller logs that and carries on.
func markFromInternet(name string, zone []byte) error {
	return os.WriteFile(name+":Zone.Identifier", zone, 0o644)
}

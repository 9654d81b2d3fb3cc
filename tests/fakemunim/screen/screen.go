// Package screen is the fake Munim's screenshot data, in a package of its own
// so the tests that check what arrived through the host can compute exactly
// what the server sent.
package screen

// Bytes is the image data fakemunim's screenshot returns for size n: a PNG
// signature followed by a repeating pattern, so truncation or reordering shows.
func Bytes(n int) []byte {
	sig := []byte("\x89PNG\r\n\x1a\n")
	b := make([]byte, n)
	for i := range b {
		if i < len(sig) {
			b[i] = sig[i]
		} else {
			b[i] = byte(i % 251)
		}
	}
	return b
}

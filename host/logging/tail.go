package logging

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
)

// Tail returns the last n lines of the log at path, oldest first, reading at
// most maxBytes from its end (and, when the file holds fewer lines, from the
// end of the rotated "<path>.1" before it). A line cut by the byte bound is
// left out. A log that does not exist yet has no lines and no error.
func Tail(path string, n int, maxBytes int64) ([]string, error) {
	lines, err := tailFile(path, n, maxBytes)
	if err != nil {
		return nil, err
	}
	if len(lines) < n {
		older, err := tailFile(path+".1", n-len(lines), maxBytes)
		if err != nil {
			return lines, nil // the current file's lines are still worth having
		}
		lines = append(older, lines...)
	}
	return lines, nil
}

// tailFile is Tail of one file.
func tailFile(path string, n int, maxBytes int64) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// One byte more than the bound, to tell whether the first line starts
	// right at it.
	from := max(st.Size()-maxBytes-1, 0)
	buf := make([]byte, st.Size()-from)
	if _, err := f.ReadAt(buf, from); err != nil && err != io.EOF {
		return nil, err
	}
	if from > 0 { // drop what precedes the first whole line
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		} else {
			buf = nil
		}
	}
	var lines []string
	for _, l := range bytes.Split(bytes.TrimRight(buf, "\n"), []byte("\n")) {
		if len(l) > 0 {
			lines = append(lines, string(l))
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines, nil
}

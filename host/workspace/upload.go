package workspace

import (
	"errors"
	"fmt"
	"io"

	"github.com/gnosis/gnosis/runtime/wire"
)

// Piece is one part of a file read for an upload.
type Piece struct {
	Data []byte
	Size int64 // the whole file's size
	EOF  bool  // Data ends at the end of the file
	MIME string
}

// Read returns up to length bytes of the file at rel from offset. Files above
// the upload limit are refused whole (FILE_TOO_LARGE), so an upload is never
// silently truncated; length 0 means the per-read limit. Anything but a
// regular file (a folder, FIFO, socket or device) is refused from the opened
// descriptor, before any read can wait on it.
func (w *Workspace) Read(rel string, offset, length int64) (Piece, error) {
	if err := w.ready(); err != nil {
		return Piece{}, err
	}
	if _, bad := cleanRelative(rel); bad != "" {
		return Piece{}, badPath(bad)
	}
	if offset < 0 || length < 0 {
		return Piece{}, wire.Errorf(wire.CodeInvalidRequest, "offset and length may not be negative")
	}
	if length == 0 || length > w.limits.read {
		length = w.limits.read
	}
	f, err := openForRead(w.root, rel)
	if err != nil {
		return Piece{}, w.pathError(rel, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Piece{}, w.pathError(rel, err)
	}
	if !info.Mode().IsRegular() {
		return Piece{}, wire.Errorf(wire.CodeInvalidRequest, "%q is not a regular file", rel)
	}
	if info.Size() > w.limits.upload {
		return Piece{}, wire.Errorf(wire.CodeFileTooLarge,
			"%q is %d bytes; uploads are limited to %d bytes", rel, info.Size(), w.limits.upload)
	}
	if offset > info.Size() {
		return Piece{}, wire.Errorf(wire.CodeInvalidRequest, "offset %d is past the end of %q (%d bytes)", offset, rel, info.Size())
	}
	if rest := info.Size() - offset; length > rest {
		length = rest
	}
	buf := make([]byte, length)
	n, err := f.ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return Piece{}, &wire.Error{Code: wire.CodeExecutionError, Message: fmt.Sprintf("cannot read %q", rel), Err: err}
	}
	return Piece{Data: buf[:n], Size: info.Size(), EOF: offset+int64(n) >= info.Size(), MIME: mimeOf(rel)}, nil
}

package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/gnosis/gnosis/runtime/wire"
)

// download is one file being saved: a private temp file and its final name.
type download struct {
	mu      sync.Mutex // serialises appends and commit of this handle
	name    string
	temp    string
	source  Source
	f       *os.File
	written int64
	done    bool
}

// Create starts saving a download under name (one file name at the top of
// the folder) and returns its handle. It fails with FILE_EXISTS if a file of
// that name exists or another download in progress claimed it.
func (w *Workspace) Create(name string) (string, error) {
	return w.CreateFrom(name, Source{})
}

// CreateFrom is Create for a download whose source is known: on Windows the
// saved file is marked as from the internet with those URLs.
func (w *Workspace) CreateFrom(name string, src Source) (string, error) {
	if err := w.ready(); err != nil {
		return "", err
	}
	if bad := checkFileName(name); bad != "" {
		return "", wire.Errorf(wire.CodeInvalidRequest, "%s", bad)
	}
	if _, err := w.root.Lstat(name); err == nil {
		return "", wire.Errorf(wire.CodeFileExists, "%q already exists in the workspace; choose another name", name)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", w.pathError(name, err)
	}
	handle := randomHex()
	w.mu.Lock()
	if _, taken := w.names[name]; taken {
		w.mu.Unlock()
		return "", wire.Errorf(wire.CodeFileExists, "%q is already being downloaded", name)
	}
	if len(w.pending) >= maxPending {
		w.mu.Unlock()
		return "", wire.Errorf(wire.CodeInvalidRequest, "too many downloads in progress (at most %d)", maxPending)
	}
	d := &download{name: name, temp: tempPrefix + handle + ".part", source: src}
	w.pending[handle] = d
	w.names[name] = handle
	w.mu.Unlock()

	f, err := w.root.OpenFile(d.temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		w.forget(handle)
		return "", &wire.Error{Code: wire.CodeExecutionError, Message: "cannot create a temporary file in the workspace", Err: err}
	}
	d.f = f
	return handle, nil
}

// Append adds data to the download; passing the download limit aborts it
// (FILE_TOO_LARGE) so no partial file is left behind.
func (w *Workspace) Append(handle string, data []byte) (int64, error) {
	d, err := w.lookup(handle)
	if err != nil {
		return 0, err
	}
	d.mu.Lock()
	if d.done {
		d.mu.Unlock()
		return 0, unknownHandle()
	}
	if d.written+int64(len(data)) > w.limits.download {
		d.mu.Unlock()
		_ = w.Abort(handle)
		return 0, wire.Errorf(wire.CodeFileTooLarge, "download %q exceeds the limit of %d bytes and was discarded", d.name, w.limits.download)
	}
	n, err := d.f.Write(data)
	d.written += int64(n)
	total := d.written
	d.mu.Unlock()
	if err != nil {
		_ = w.Abort(handle)
		return total, &wire.Error{Code: wire.CodeExecutionError, Message: fmt.Sprintf("cannot write download %q; it was discarded", d.name), Err: err}
	}
	return total, nil
}

// Commit publishes the download under its name. The hard link fails if the
// name appeared meanwhile (FILE_EXISTS), so an existing file is never
// replaced; where hard links are unsupported an O_EXCL copy does the same.
// The handle ends either way.
func (w *Workspace) Commit(handle string) (string, int64, error) {
	d, err := w.lookup(handle)
	if err != nil {
		return "", 0, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		return "", 0, unknownHandle()
	}
	d.done = true
	defer w.forget(handle)
	defer func() { _ = w.root.Remove(d.temp) }()
	if err := d.f.Sync(); err != nil {
		d.f.Close()
		return "", 0, &wire.Error{Code: wire.CodeExecutionError, Message: fmt.Sprintf("cannot save download %q", d.name), Err: err}
	}
	if err := d.f.Close(); err != nil {
		return "", 0, &wire.Error{Code: wire.CodeExecutionError, Message: fmt.Sprintf("cannot save download %q", d.name), Err: err}
	}
	if mode, ok := w.newFileMode(handle); ok {
		_ = w.root.Chmod(d.temp, mode) // on failure the file stays private
	}
	// Marked before it is published (a hard link shares the streams), so the
	// file is never visible under its name without the mark.
	w.markDownloaded(d.temp, d.source)
	err = w.root.Link(d.temp, d.name)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		if err = w.copyExclusive(d.temp, d.name); err == nil {
			w.markDownloaded(d.name, d.source)
		}
	}
	switch {
	case errors.Is(err, fs.ErrExist):
		return "", 0, wire.Errorf(wire.CodeFileExists, "%q appeared in the workspace meanwhile; the download was not saved", d.name)
	case err != nil:
		return "", 0, &wire.Error{Code: wire.CodeExecutionError, Message: fmt.Sprintf("cannot save download %q", d.name), Err: err}
	}
	return d.name, d.written, nil
}

// Abort discards the download and its temporary file.
func (w *Workspace) Abort(handle string) error {
	d, err := w.lookup(handle)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		return unknownHandle()
	}
	d.done = true
	d.f.Close()
	_ = w.root.Remove(d.temp)
	w.forget(handle)
	return nil
}

// markDownloaded writes the Mark-of-the-Web onto the file rel of the folder
// (Windows only). A failure is logged, not returned: the download is saved
// either way.
func (w *Workspace) markDownloaded(rel string, src Source) {
	if err := markFromInternet(filepath.Join(w.dir, rel), zoneIdentifier(src)); err != nil {
		w.log.Warn().Err(err).Str("file", rel).Msg("cannot mark the download as from the internet")
	}
}

// downloadPerm is the most a saved download gets; the umask (or the folder's
// default ACL) takes bits away, as for any file the user's programs create.
const downloadPerm = 0o644

// newFileMode returns the permissions a file created with downloadPerm gets
// in the folder: the mode of an empty probe file, named like the download's
// temporary file (so the inventory hides it and a restart removes it), made
// and removed at once. The temporary file itself stays private while it is
// written and takes this mode only when it is published.
func (w *Workspace) newFileMode(handle string) (os.FileMode, bool) {
	probe := tempPrefix + handle + ".mode.part"
	f, err := w.root.OpenFile(probe, os.O_WRONLY|os.O_CREATE|os.O_EXCL, downloadPerm)
	if err != nil {
		return 0, false
	}
	defer func() { _ = w.root.Remove(probe) }()
	info, err := f.Stat()
	f.Close()
	if err != nil {
		return 0, false
	}
	return info.Mode().Perm() & downloadPerm, true
}

func (w *Workspace) copyExclusive(from, to string) error {
	src, err := w.root.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := w.root.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, downloadPerm)
	if err != nil {
		return err
	}
	if _, err := dst.ReadFrom(src); err != nil {
		dst.Close()
		_ = w.root.Remove(to)
		return err
	}
	return dst.Close()
}

func (w *Workspace) lookup(handle string) (*download, error) {
	if err := w.ready(); err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	d, ok := w.pending[handle]
	if !ok {
		return nil, unknownHandle()
	}
	return d, nil
}

func (w *Workspace) forget(handle string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if d, ok := w.pending[handle]; ok {
		delete(w.names, d.name)
		delete(w.pending, handle)
	}
}

func unknownHandle() error {
	return wire.Errorf(wire.CodeInvalidRequest, "unknown or finished download handle")
}

func randomHex() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

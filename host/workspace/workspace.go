package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gnosis/gnosis/runtime/wire"
	"github.com/rs/zerolog"
)

// The size limits of one upload (64 MiB) and one download (256 MiB), as
// docs/host-methods.md states them.
const (
	MaxUploadBytes   = 64 << 20
	MaxDownloadBytes = 256 << 20
	// MaxReadBytes bounds one workspace.read piece (before base64).
	MaxReadBytes = 8 << 20
	// maxPending bounds downloads open at once, so a confused client cannot
	// exhaust file descriptors.
	maxPending = 16
)

// Workspace is one configured folder and the downloads in progress in it.
// It is safe for concurrent use.
type Workspace struct {
	dir    string // as configured, for messages
	root   *os.Root
	setup  error // why the folder cannot be used, if it cannot
	limits limits
	log    zerolog.Logger

	mu      sync.Mutex
	pending map[string]*download // by handle
	names   map[string]string    // reserved final name -> handle
}

type limits struct {
	upload, download, read int64
}

// Option adjusts a Workspace (tests lower the limits).
type Option func(*Workspace)

// WithLimits replaces the upload, download and per-read limits in bytes.
func WithLimits(upload, download, read int64) Option {
	return func(w *Workspace) { w.limits = limits{upload, download, read} }
}

// WithLogger sets where problems that do not fail a method are reported (a
// download that could not be marked as from the internet). The default
// discards them.
func WithLogger(l zerolog.Logger) Option { return func(w *Workspace) { w.log = l } }

// Open prepares the workspace in dir. It never fails: a missing or unusable
// folder is remembered and reported by every method, so the host keeps
// serving everything else.
func Open(dir string, opts ...Option) *Workspace {
	w := &Workspace{
		dir:     dir,
		limits:  limits{MaxUploadBytes, MaxDownloadBytes, MaxReadBytes},
		log:     zerolog.Nop(),
		pending: map[string]*download{},
		names:   map[string]string{},
	}
	for _, o := range opts {
		o(w)
	}
	switch {
	case dir == "":
		w.setup = wire.Errorf(wire.CodeNotConfigured,
			`no workspace folder is configured: set "workspace": {"dir": "..."} in the host configuration`)
	case !filepath.IsAbs(dir):
		w.setup = wire.Errorf(wire.CodeNotConfigured, "workspace folder %q is not an absolute path", dir)
	default:
		root, err := os.OpenRoot(dir)
		if err != nil {
			w.setup = &wire.Error{Code: wire.CodeNotConfigured,
				Message: fmt.Sprintf("workspace folder %q cannot be opened", dir), Err: err}
		}
		w.root = root
		if root != nil {
			w.removeStale(time.Now().Add(-staleAfter))
		}
	}
	return w
}

// staleAfter is the age after which a temporary download file is taken to
// be left over by a host that died mid-download. Another host serving
// another browser may be writing younger ones, so those stay.
const staleAfter = 24 * time.Hour

// removeStale deletes the temporary download files older than cutoff at
// the top of the folder.
func (w *Workspace) removeStale(cutoff time.Time) {
	entries, err := fs.ReadDir(w.root.FS(), ".")
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), tempPrefix) || !strings.HasSuffix(e.Name(), ".part") {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
			_ = w.root.Remove(e.Name())
		}
	}
}

// Close aborts the downloads still in progress and releases the folder.
func (w *Workspace) Close() error {
	w.mu.Lock()
	handles := make([]string, 0, len(w.pending))
	for h := range w.pending {
		handles = append(handles, h)
	}
	w.mu.Unlock()
	for _, h := range handles {
		_ = w.Abort(h)
	}
	if w.root != nil {
		return w.root.Close()
	}
	return nil
}

// ready returns the setup error, if any.
func (w *Workspace) ready() error {
	if w.setup != nil {
		return w.setup
	}
	return nil
}

// pathError turns a file-system error on a workspace path into a protocol
// error: missing files are FILE_NOT_FOUND, escapes (through symbolic links
// that os.Root refuses) FORBIDDEN, anything else EXECUTION_ERROR.
func (w *Workspace) pathError(rel string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &wire.Error{Code: wire.CodeFileNotFound, Message: fmt.Sprintf("%q is not in the workspace", rel), Err: err}
	case w.escapes(rel):
		return &wire.Error{Code: wire.CodeForbidden, Message: fmt.Sprintf("%q leads outside the workspace", rel), Err: err}
	}
	return &wire.Error{Code: wire.CodeExecutionError, Message: fmt.Sprintf("cannot access %q", rel), Err: err}
}

// escapes reports whether rel, with symbolic links resolved, lies outside the
// folder. Used only to pick the error code after os.Root refused an access.
func (w *Workspace) escapes(rel string) bool {
	base, err := filepath.EvalSymlinks(w.dir)
	if err != nil {
		return false
	}
	full, err := filepath.EvalSymlinks(filepath.Join(w.dir, filepath.FromSlash(rel)))
	if err != nil {
		// A dangling link: judge by where it points.
		target, lerr := os.Readlink(filepath.Join(w.dir, filepath.FromSlash(rel)))
		if lerr != nil {
			return false
		}
		if filepath.IsAbs(target) {
			full = target
		} else {
			full = filepath.Join(filepath.Dir(filepath.Join(base, filepath.FromSlash(rel))), target)
		}
	}
	r, err := filepath.Rel(base, full)
	return err != nil || r == ".." || len(r) > 2 && r[:3] == ".."+string(filepath.Separator) || filepath.IsAbs(r)
}

func badPath(reason string) error {
	if reason == "absolute paths are not allowed" || reason == "path leaves the workspace" {
		return wire.Errorf(wire.CodeForbidden, "%s", reason)
	}
	return wire.Errorf(wire.CodeInvalidRequest, "%s", reason)
}

// Package logging sets up the host's logger: zerolog JSON lines to a
// size-capped file in the user's cache directory and to stderr.
//
// Never to stdout: stdout carries the native-messaging protocol, and one stray
// byte there breaks the browser's port. The file exists because a browser
// usually discards a host's stderr; it is capped so a chatty provider cannot
// fill the disk.
//
// Users attach this log to bug reports, so at the default level (info) it
// says what ran and how it went, never with what: request parameters and
// argument values appear only at debug level, and redacted even then
// (runtime.RedactJSON, runtime.RedactMessage); every line then goes through
// redact.Writer, which masks the values known to be secret wherever they
// recur and credentials in free text (a server's stderr).
package logging

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/host/redact"
)

// DefaultMaxBytes caps the log file before it is rotated to "<file>.1".
const DefaultMaxBytes = 5 << 20

// Options configures New. Zero values mean defaults.
type Options struct {
	Level    string    // debug, info, warn, error; default info
	File     string    // default DefaultFile(); Off disables the file
	MaxBytes int64     // default DefaultMaxBytes
	Stderr   io.Writer // default os.Stderr; the second destination
	// Secrets masks, in every line, the values known to be secret and what
	// reads as a credential in free text (redact.Writer); nil: patterns only.
	Secrets *redact.Set
}

// Off, as Options.File, disables the log file.
const Off = "-"

// Path is the log file for a configured file name: file itself, or
// DefaultFile when it is "" ("" with no error when file is Off).
func Path(file string) (string, error) {
	switch file {
	case Off:
		return "", nil
	case "":
		return DefaultFile()
	}
	return file, nil
}

// DefaultFile is <user cache dir>/gnosis/gnosis-host.log.
func DefaultFile() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("locating cache directory: %w", err)
	}
	return filepath.Join(dir, "gnosis", "gnosis-host.log"), nil
}

// New returns a logger writing to the file and stderr, and a Closer for the
// file. A problem with the file or the level is returned as err, but the
// logger is always usable (stderr only, or info level): logging must never
// stop the host.
func New(o Options) (zerolog.Logger, io.Closer, error) {
	stderr := o.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	var problems []string
	level := zerolog.InfoLevel
	if o.Level != "" {
		l, err := zerolog.ParseLevel(strings.ToLower(o.Level))
		if err != nil || l == zerolog.NoLevel {
			problems = append(problems, fmt.Sprintf("unknown log level %q, using info", o.Level))
		} else {
			level = l
		}
	}
	var file *RotatingFile
	writers := []io.Writer{stderr}
	if o.File != Off {
		path, err := Path(o.File)
		if err == nil {
			file, err = OpenRotating(path, o.MaxBytes)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("log file: %v", err))
		} else {
			writers = append(writers, file)
		}
	}
	log := zerolog.New(redact.Writer(zerolog.MultiLevelWriter(writers...), o.Secrets)).Level(level).With().Timestamp().Logger()
	var err error
	if len(problems) > 0 {
		err = fmt.Errorf("logging: %s", strings.Join(problems, "; "))
	}
	if file == nil {
		return log, nopCloser{}, err
	}
	return log, file, err
}

type nopCloser struct{}

// Close does nothing: there is no file to close.
func (nopCloser) Close() error { return nil }

// RotatingFile is an append-only file that, when a write would take it past
// its cap, is renamed to "<path>.1" (replacing the previous one) and started
// afresh. At most about twice the cap is kept on disk.
type RotatingFile struct {
	mu   sync.Mutex
	path string
	max  int64
	f    *os.File
	size int64
}

// OpenRotating opens (creating it and its directory) the file at path.
func OpenRotating(path string, maxBytes int64) (*RotatingFile, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating log directory: %w", err)
	}
	r := &RotatingFile{path: path, max: maxBytes}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *RotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening log file: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("opening log file: %w", err)
	}
	r.f, r.size = f, st.Size()
	return nil
}

// Write appends p, rotating first if p would cross the cap.
func (r *RotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return 0, os.ErrClosed
	}
	if r.size > 0 && r.size+int64(len(p)) > r.max {
		if err := r.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

func (r *RotatingFile) rotate() error {
	r.f.Close()
	r.f = nil
	// Windows cannot rename onto an existing file.
	_ = os.Remove(r.path + ".1")
	if err := os.Rename(r.path, r.path+".1"); err != nil {
		// Keep logging into the same file rather than losing lines.
		if oerr := r.open(); oerr != nil {
			return oerr
		}
		r.size = 0 // avoid retrying on every write
		return nil
	}
	return r.open()
}

// Close closes the file.
func (r *RotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

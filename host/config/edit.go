package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/gnosis/gnosis/host/atomicfile"
)

// editMu serialises this process's edits of its config file, so a
// policy.set and a providers.set at the same moment do not each write over
// the other's; lockFolder does the same between processes (the running host
// and `gnosis-host install --munim`).
var editMu sync.Mutex

// Edit changes the config file at path: change gets the file's top-level
// object (empty when there is no file) and edits it in place; the result is
// written atomically (mode 0600). Every key change does not touch stays as
// the file had it, including keys this host does not know. Edit is the one
// writer of the file: edits wait for each other, in this process and across
// processes (lockFolder on the file's folder, created if missing), so none
// is lost to another's read-modify-write.
//
// A file Load could not read (not a JSON object, a value of the wrong type)
// is left alone and Edit fails saying where it is wrong: the user's
// hand-written file is never clobbered, nor half-understood and rewritten.
// An error from change leaves the file as it was.
func Edit(path string, change func(doc map[string]json.RawMessage) error) error {
	if path == "" {
		return errors.New("no config file path")
	}
	editMu.Lock()
	defer editMu.Unlock()
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	unlock, err := lockFolder(dir)
	if err != nil {
		return err
	}
	defer unlock()
	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read config: %w", err)
	default:
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		if err := json.Unmarshal(data, &doc); err != nil || doc == nil {
			return fmt.Errorf("config %s is not a JSON object, not touching it: %w", path, located(data, nullErr(err)))
		}
		var cfg Config
		if err := json.Unmarshal(data, &cfg); err != nil {
			return fmt.Errorf("config %s: %w; fix it there first", path, located(data, err))
		}
	}
	if err := change(doc); err != nil {
		return err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return atomicfile.Write(path, out.Bytes(), 0o600)
}

// nullErr is err, or a description of a JSON null where an object belongs.
func nullErr(err error) error {
	if err == nil {
		return errors.New("it is null")
	}
	return err
}

// object decodes doc[key] as a JSON object for editing: absent or null is
// an empty one; anything else that is not an object is an error naming key.
func object(doc map[string]json.RawMessage, key, where string) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	raw, ok := doc[key]
	if !ok || string(raw) == "null" {
		return m, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s%s is not an object, not touching it", where, key)
	}
	return m, nil
}

// put encodes v into doc[key].
func put(doc map[string]json.RawMessage, key string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	doc[key] = json.RawMessage(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return nil
}

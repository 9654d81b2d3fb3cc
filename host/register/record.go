package register

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
)

// Record is what install wrote, kept in the install folder so that
// uninstall removes exactly that.
type Record struct {
	// Binary is the copied host executable.
	Binary string `json:"binary,omitempty"`
	// Files are the host manifests written.
	Files []string `json:"files,omitempty"`
	// Keys are the registry keys written, as "HKCU\Software\...".
	Keys []string `json:"keys,omitempty"`
	// Dirs are the folders install created, removed by uninstall when empty.
	Dirs []string `json:"dirs,omitempty"`
	// ParentKeys are the registry keys above Keys that install created
	// (Software\Chromium, ...\NativeMessagingHosts), removed by uninstall
	// when empty.
	ParentKeys []string `json:"parent_keys,omitempty"`
	// Config is the configuration file, when install created it.
	Config string `json:"config,omitempty"`
}

func readRecord(name string) (Record, error) {
	var r Record
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("read install record: %w", err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("install record %s: %w", name, err)
	}
	return r, nil
}

func (r Record) merge(o Record) Record {
	if o.Binary != "" {
		r.Binary = o.Binary
	}
	if o.Config != "" {
		r.Config = o.Config
	}
	r.Files = union(r.Files, o.Files)
	r.Keys = union(r.Keys, o.Keys)
	r.Dirs = union(r.Dirs, o.Dirs)
	r.ParentKeys = union(r.ParentKeys, o.ParentKeys)
	return r
}

func (r Record) write(name string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(name, append(data, '\n'), 0o644)
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range append(append([]string{}, a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

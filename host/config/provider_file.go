package config

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"time"
)

// ErrNoProvider is RemoveProvider's error when the file has no entry of
// that name.
var ErrNoProvider = errors.New("no provider of that name in the config file")

// SetProvider writes p into the providers list of the config file at path
// (through Edit): it replaces the entry whose name is p.Name, keeping that
// entry's place and the fields this host does not know, or appends one.
// Fields p leaves empty (args, env, startTimeout) are removed from the
// entry; timeout is written as a duration ("2m0s").
func SetProvider(path string, p Provider) error {
	return Edit(path, func(doc map[string]json.RawMessage) error { return putProvider(doc, p) })
}

// emptyPolicy is the policy InstallProvider writes into a file that has
// none: nothing granted, written out so the user sees where grants go.
const emptyPolicy = `{"default":[],"origins":{}}`

// InstallProvider is SetProvider as `gnosis-host install --munim` uses it:
// a file without a policy also gets the empty one (emptyPolicy), and it
// reports whether the file was created (so uninstall removes only a file
// install made).
func InstallProvider(path string, p Provider) (created bool, err error) {
	err = Edit(path, func(doc map[string]json.RawMessage) error {
		_, statErr := os.Stat(path) // within Edit's lock: what Edit read
		created = errors.Is(statErr, fs.ErrNotExist)
		if err := putProvider(doc, p); err != nil {
			return err
		}
		if _, ok := doc["policy"]; !ok {
			doc["policy"] = json.RawMessage(emptyPolicy)
		}
		return nil
	})
	return created && err == nil, err
}

// putProvider writes p into doc's providers list: it replaces the entry
// whose name is p.Name, keeping that entry's place and the fields this host
// does not know, or appends one.
func putProvider(doc map[string]json.RawMessage, p Provider) error {
	entries, err := providerEntries(doc)
	if err != nil {
		return err
	}
	i := indexOf(entries, p.Name)
	entry := map[string]json.RawMessage{}
	if i >= 0 {
		json.Unmarshal(entries[i], &entry) // an object: Edit checked the file decodes
	}
	if err := fill(entry, p); err != nil {
		return err
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	if i >= 0 {
		entries[i] = raw
	} else {
		entries = append(entries, raw)
	}
	return put(doc, "providers", entries)
}

// RemoveProvider removes the entry called name from the providers list of
// the config file at path; ErrNoProvider when there is none.
func RemoveProvider(path, name string) error {
	return Edit(path, func(doc map[string]json.RawMessage) error {
		entries, err := providerEntries(doc)
		if err != nil {
			return err
		}
		i := indexOf(entries, name)
		if i < 0 {
			return ErrNoProvider
		}
		entries = append(entries[:i], entries[i+1:]...)
		return put(doc, "providers", entries)
	})
}

// providerEntries is doc's providers list, entry by entry as written.
func providerEntries(doc map[string]json.RawMessage) ([]json.RawMessage, error) {
	var entries []json.RawMessage
	if raw, ok := doc["providers"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &entries); err != nil {
			return nil, errors.New("providers is not a list, not touching it")
		}
	}
	if entries == nil {
		entries = []json.RawMessage{}
	}
	return entries, nil
}

// indexOf finds the entry Load would call name, -1 if none.
func indexOf(entries []json.RawMessage, name string) int {
	for i, raw := range entries {
		var p Provider
		if json.Unmarshal(raw, &p) == nil && nameOf(p, i) == name {
			return i
		}
	}
	return -1
}

// fill sets entry's known fields from p.
func fill(entry map[string]json.RawMessage, p Provider) error {
	set := func(key string, v any, empty bool) error {
		if empty {
			delete(entry, key)
			return nil
		}
		return put(entry, key, v)
	}
	for _, f := range []struct {
		key   string
		v     any
		empty bool
	}{
		{"name", p.Name, false},
		{"command", p.Command, false},
		{"args", p.Args, len(p.Args) == 0},
		{"env", p.Env, len(p.Env) == 0},
		{"prefix", p.Prefix, false},
		{"timeout", time.Duration(p.Timeout).String(), p.Timeout <= 0},
		{"startTimeout", time.Duration(p.StartTimeout).String(), p.StartTimeout <= 0},
		{"assertFormats", p.AssertFormats, !p.AssertFormats},
	} {
		if err := set(f.key, f.v, f.empty); err != nil {
			return err
		}
	}
	return nil
}

// EnvManaged names the environment variable that overrides the provider
// called name when the host starts (MUNIM_PATH or CAPABILITY_PREFIX for the
// default provider), "" when none does: a change written to the file would
// not be what runs.
func EnvManaged(name string, getenv func(string) string) string {
	if name != DefaultProvider {
		return ""
	}
	for _, k := range []string{EnvMunim, EnvPrefix} {
		if getenv(k) != "" {
			return k
		}
	}
	return ""
}

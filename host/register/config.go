package register

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// Provider is one entry of the configuration's "providers" list, as far as
// registration needs to know it.
type Provider struct {
	Name    string   `json:"name"`
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	Prefix  string   `json:"prefix"`
}

// MunimProvider is the provider entry install writes for --munim.
func MunimProvider(command string, args []string) Provider {
	return Provider{Name: "munim", Command: command, Args: args, Prefix: "computer"}
}

// setProvider puts p into the configuration file name, replacing a provider
// of the same name and keeping every other setting and provider as it was.
// A file without a policy gets the empty one (nothing granted), written out.
// It reports whether the file was created.
func setProvider(name string, p Provider) (created bool, err error) {
	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		created = true
	case err != nil:
		return false, fmt.Errorf("read config: %w", err)
	default:
		if err := json.Unmarshal(data, &doc); err != nil {
			return false, fmt.Errorf("config %s is not a JSON object, not touching it: %w", name, err)
		}
	}
	var providers []json.RawMessage
	if raw, ok := doc["providers"]; ok {
		if err := json.Unmarshal(raw, &providers); err != nil {
			return false, fmt.Errorf("config %s: providers is not a list, not touching it: %w", name, err)
		}
	}
	entry, err := json.Marshal(p)
	if err != nil {
		return false, err
	}
	replaced := false
	for i, raw := range providers {
		var q struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &q) == nil && q.Name == p.Name {
			providers[i], replaced = entry, true
		}
	}
	if !replaced {
		providers = append(providers, entry)
	}
	doc["providers"], _ = json.Marshal(providers)
	if _, ok := doc["policy"]; !ok {
		// Written out so the user sees it: nothing is granted until the user
		// grants it per site on the options page.
		doc["policy"] = json.RawMessage(`{"default":[],"origins":{}}`)
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return false, err
	}
	if err := writeFile(name, append(out, '\n'), 0o600); err != nil {
		return false, err
	}
	return created, nil
}

// findCommand resolves a provider command the way the host will start it:
// an absolute path must exist; a bare name is looked up on PATH.
func findCommand(cmd string) (string, error) {
	if filepath.IsAbs(cmd) {
		if _, err := os.Stat(cmd); err != nil {
			return "", fmt.Errorf("%s: %w", cmd, err)
		}
		return cmd, nil
	}
	p, err := exec.LookPath(cmd)
	if err != nil {
		return "", fmt.Errorf("%q not found on PATH (a browser starts the host with a minimal PATH: prefer an absolute path)", cmd)
	}
	return p, nil
}

package grants

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/gnosis/gnosis/host/atomicfile"
	"github.com/gnosis/gnosis/runtime"
)

// writeOrigin sets policy.origins[origin] = rule in the config file at path,
// keeping every other setting as it was (fields this host does not know
// included), and writes the file atomically. A file that is not a JSON
// object is left alone: the user's hand-written config is never clobbered.
func writeOrigin(path, origin string, rule runtime.Rule) error {
	if path == "" {
		return errors.New("no config file path")
	}
	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read config: %w", err)
	default:
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("config %s is not a JSON object, not touching it: %w", path, err)
		}
	}
	policy := map[string]json.RawMessage{}
	if raw, ok := doc["policy"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &policy); err != nil {
			return fmt.Errorf("config %s: policy is not an object, not touching it: %w", path, err)
		}
	}
	origins := map[string]json.RawMessage{}
	if raw, ok := policy["origins"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &origins); err != nil {
			return fmt.Errorf("config %s: policy.origins is not an object, not touching it: %w", path, err)
		}
	}
	// Keys written another way for the same origin would shadow or be
	// shadowed by this one: the new entry replaces them.
	for k := range origins {
		if n, err := runtime.NormalizeOriginKey(k); err == nil && n == origin {
			delete(origins, k)
		}
	}
	var err2 error
	if origins[origin], err2 = json.Marshal(rule); err2 != nil {
		return err2
	}
	if policy["origins"], err2 = json.Marshal(origins); err2 != nil {
		return err2
	}
	if _, ok := policy["default"]; !ok {
		policy["default"] = json.RawMessage("[]")
	}
	if doc["policy"], err2 = json.Marshal(policy); err2 != nil {
		return err2
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(out, '\n'), 0o600)
}

package config

import (
	"encoding/json"

	"github.com/gnosis/gnosis/runtime"
)

// SetOrigin sets policy.origins[origin] = rule in the config file at path
// (through Edit: every other setting kept, the file written atomically).
// Keys written another way for the same origin are removed: they would
// clash with it (see Clash). A policy without "default" gets an empty one,
// so the file says that unlisted origins get nothing.
func SetOrigin(path, origin string, rule runtime.Rule) error {
	return Edit(path, func(doc map[string]json.RawMessage) error {
		policy, err := object(doc, "policy", "")
		if err != nil {
			return err
		}
		origins, err := object(policy, "origins", "policy.")
		if err != nil {
			return err
		}
		for k := range origins {
			if n, err := runtime.NormalizeOriginKey(k); err == nil && n == origin {
				delete(origins, k)
			}
		}
		if err := put(origins, origin, rule); err != nil {
			return err
		}
		if err := put(policy, "origins", origins); err != nil {
			return err
		}
		if _, ok := policy["default"]; !ok {
			policy["default"] = json.RawMessage("[]")
		}
		return put(doc, "policy", policy)
	})
}

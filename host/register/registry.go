package register

import "errors"

// Registry is the Windows registry as registration uses it: keys whose
// default value is a manifest path, always in the 64-bit view.
type Registry interface {
	// Get returns the key's default value; ErrNoKey if the key is absent.
	Get(root Root, key string) (string, error)
	// Set creates the key if needed and sets its default value.
	Set(root Root, key, value string) error
	// Delete removes the key (which must have no sub-keys).
	Delete(root Root, key string) error
	// Exists reports whether the key exists.
	Exists(root Root, key string) bool
}

// ErrNoKey means a registry key does not exist.
var ErrNoKey = errors.New("registry key not found")

// ErrNoRegistry is returned when registering for Windows without a registry
// (any system but Windows).
var ErrNoRegistry = errors.New("no Windows registry on this system")

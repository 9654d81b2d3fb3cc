package register

import (
	"errors"
	"strings"
)

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
	// Contents lists the key's sub-keys and counts its values; ErrNoKey if
	// the key is absent.
	Contents(root Root, key string) (subKeys []string, values int, err error)
}

// hostsKey is the sub-key of a browser's key that holds native-messaging
// host registrations.
const hostsKey = "NativeMessagingHosts"

// parentKeys are the keys above key, deepest first, down to but not
// including the first element ("Software"): the keys setting key creates
// when they are missing.
func parentKeys(key string) []string {
	var out []string
	for {
		i := strings.LastIndex(key, `\`)
		if i <= 0 {
			return out
		}
		key = key[:i]
		if !strings.Contains(key, `\`) {
			return out
		}
		out = append(out, key)
	}
}

// emptyKey reports whether key exists and holds no sub-key and no value.
func emptyKey(reg Registry, root Root, key string) bool {
	subs, values, err := reg.Contents(root, key)
	return err == nil && len(subs) == 0 && values == 0
}

// onlyOurs reports whether key exists and holds nothing but a
// NativeMessagingHosts key that is empty or holds only our host's key: what
// Install leaves in a browser's key (Software\Chromium, Software\Microsoft\Edge)
// on a machine without that browser, and older uninstalls left behind.
func onlyOurs(reg Registry, root Root, key string) bool {
	subs, values, err := reg.Contents(root, key)
	if err != nil || values > 0 || len(subs) != 1 || !strings.EqualFold(subs[0], hostsKey) {
		return false
	}
	hosts, values, err := reg.Contents(root, key+`\`+subs[0])
	if err != nil || values > 0 {
		return false
	}
	for _, h := range hosts {
		if !strings.EqualFold(h, HostName) {
			return false
		}
	}
	return true
}

// ErrNoKey means a registry key does not exist.
var ErrNoKey = errors.New("registry key not found")

// ErrNoRegistry is returned when registering for Windows without a registry
// (any system but Windows).
var ErrNoRegistry = errors.New("no Windows registry on this system")

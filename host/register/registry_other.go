//go:build !windows

package register

import "errors"

// SystemRegistry returns nil: only Windows has a registry.
func SystemRegistry() Registry { return nil }

// MSIMunim fails: only the Windows installer stores a Munim path, in the
// registry (MSIKey).
func MSIMunim() (string, error) {
	return "", errors.New("--munim-from-msi reads what the Windows installer stored in the registry; on this system give --munim PATH")
}

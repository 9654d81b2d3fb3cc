//go:build !windows

package register

// SystemRegistry returns nil: only Windows has a registry.
func SystemRegistry() Registry { return nil }

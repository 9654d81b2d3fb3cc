//go:build !unix && !windows

package config

// lockFolder does nothing where the host has no way to lock across
// processes; Edit's own mutex still serialises this process's edits.
func lockFolder(string) (func(), error) { return func() {}, nil }

package register

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Found reports whether browser b is installed for this user: its user data
// folder has its family's Marker file (it has run), its executable is on PATH
// (Linux), its application bundle exists (macOS), or its vendor registry key
// exists and holds more than our own registration (Windows). lookPath may
// be nil for exec.LookPath.
func (e Env) Found(b Browser, reg Registry, lookPath func(string) (string, error)) bool {
	if !b.Supported(e.GOOS) {
		return false
	}
	if dir := e.DataDir(b); dir != "" {
		if _, err := os.Stat(join(e.GOOS, dir, b.Family.Marker)); err == nil {
			return true
		}
	}
	switch e.GOOS {
	case "linux":
		if lookPath == nil {
			lookPath = exec.LookPath
		}
		for _, c := range b.LinuxCommands {
			if _, err := lookPath(c); err == nil {
				return true
			}
		}
	case "darwin":
		if _, err := os.Stat("/Applications/" + b.MacApp + ".app"); err == nil {
			return true
		}
	case "windows":
		if reg != nil && (vendorKey(reg, HKCU, b.WinVendorKey) || vendorKey(reg, HKLM, b.WinVendorKey)) {
			return true
		}
	}
	return false
}

// Select turns a --browsers value into table rows. "" means the browsers
// found on the machine, "all" every browser supported on the Env's system;
// otherwise a comma-separated list of ids.
func (e Env) Select(list string, reg Registry, lookPath func(string) (string, error)) ([]Browser, error) {
	list = strings.TrimSpace(list)
	var out []Browser
	switch list {
	case "":
		for _, b := range Browsers {
			if e.Found(b, reg, lookPath) {
				out = append(out, b)
			}
		}
	case "all":
		for _, b := range Browsers {
			if b.Supported(e.GOOS) {
				out = append(out, b)
			}
		}
	default:
		seen := map[string]bool{}
		for _, id := range strings.Split(list, ",") {
			if strings.TrimSpace(id) == "" {
				continue
			}
			b, ok := Lookup(id)
			if !ok {
				return nil, fmt.Errorf("unknown browser %q (known: %s, all)", id, strings.Join(IDs(e.GOOS), ", "))
			}
			if !b.Supported(e.GOOS) {
				return nil, fmt.Errorf("%s: %w", b.Name, ErrUnsupported)
			}
			if !seen[b.ID] {
				seen[b.ID] = true
				out = append(out, b)
			}
		}
	}
	return out, nil
}

// vendorKey reports whether a browser's installer created key: it exists
// and is not just what registering the host left there.
func vendorKey(reg Registry, root Root, key string) bool {
	return reg.Exists(root, key) && !onlyOurs(reg, root, key)
}

package workspace

import (
	"strings"
	"unicode/utf8"
)

// maxNameBytes is the longest file name most file systems accept.
const maxNameBytes = 255

// tempPrefix marks the private temporary files of downloads in progress; the
// inventory hides them and a download may not be named like one.
const tempPrefix = ".gnosis-download-"

// cleanRelative checks a path the model or page names inside the workspace
// ("reports/q3.pdf") and returns it unchanged when acceptable. Paths use
// forward slashes on every platform; absolute paths, drive letters, empty or
// "." / ".." segments and backslashes are refused with the reason.
func cleanRelative(p string) (string, string) {
	switch {
	case p == "":
		return "", "path is empty"
	case !utf8.ValidString(p) || strings.ContainsRune(p, 0):
		return "", "path is not valid text"
	case strings.HasPrefix(p, "/") || hasDrive(p):
		return "", "absolute paths are not allowed"
	case strings.Contains(p, `\`):
		return "", "use forward slashes in workspace paths"
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "..":
			return "", "path leaves the workspace"
		case "", ".":
			return "", "path has an empty or '.' segment"
		}
	}
	return p, ""
}

// checkFileName checks a download name: one file name, no folder, no "..",
// nothing a common file system would reinterpret, not one of our temp names.
func checkFileName(name string) string {
	switch {
	case name == "":
		return "file name is empty"
	case !utf8.ValidString(name):
		return "file name is not valid text"
	case len(name) > maxNameBytes:
		return "file name is longer than 255 bytes"
	case name == "." || name == "..":
		return "file name may not be '.' or '..'"
	case strings.ContainsAny(name, `/\`):
		return "file name may not contain a folder"
	case strings.ContainsAny(name, `<>:"|?*`):
		return `file name may not contain any of < > : " | ? *`
	case strings.HasSuffix(name, ".") || strings.HasSuffix(name, " "):
		return "file name may not end with a dot or a space"
	case strings.HasPrefix(name, tempPrefix):
		return "file name is reserved"
	case reservedOnWindows(name):
		return "file name is a reserved device name"
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return "file name may not contain control characters"
		}
	}
	return ""
}

func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))
}

// reservedOnWindows reports device names (CON, NUL, COM1, ...) that Windows
// treats specially whatever the extension; refused everywhere so a workspace
// behaves the same on every platform.
func reservedOnWindows(name string) bool {
	base := strings.ToUpper(name)
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	base = strings.TrimRight(base, " ")
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		return base[3] >= '0' && base[3] <= '9'
	}
	return false
}

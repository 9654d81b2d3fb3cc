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
// nothing a common file system would reinterpret, nothing that hides or
// reorders what the user reads (a bidi override can show "invoice\u202Efdp.exe"
// as "invoiceexe.pdf"), not one of our temp names.
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
	case strings.HasPrefix(name, tempPrefix):
		return "file name is reserved"
	case strings.HasPrefix(name, ".") || strings.HasPrefix(name, " "):
		return "file name may not start with a dot or a space"
	case strings.HasSuffix(name, ".") || strings.HasSuffix(name, " "):
		return "file name may not end with a dot or a space"
	case reservedOnWindows(name):
		return "file name is a reserved device name"
	}
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f:
			return "file name may not contain control characters"
		case invisible(r):
			return "file name may not contain invisible or text-direction characters"
		}
	}
	return ""
}

// invisible reports the characters that change how a name reads without
// being seen: bidi embeddings, overrides, isolates and marks, and the
// zero-width characters.
func invisible(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, // LRE, RLE, PDF, LRO, RLO
		r >= 0x2066 && r <= 0x2069,            // LRI, RLI, FSI, PDI
		r == 0x200e, r == 0x200f, r == 0x061c, // LRM, RLM, ALM
		r >= 0x200b && r <= 0x200d, // zero-width space, non-joiner, joiner
		r == 0x2060, r == 0xfeff:   // word joiner, zero-width no-break space (BOM)
		return true
	}
	return false
}

func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))
}

// reservedOnWindows reports device names (CON, NUL, COM1, LPT¹, ...) that
// Windows treats specially whatever the case and extension ("com1.tar.gz" is
// the port too); refused everywhere so a workspace behaves the same on every
// platform.
func reservedOnWindows(name string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(name), ".")
	base = strings.TrimRight(base, " ")
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	port, ok := strings.CutPrefix(base, "COM")
	if !ok {
		port, ok = strings.CutPrefix(base, "LPT")
	}
	if !ok {
		return false
	}
	switch port {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}

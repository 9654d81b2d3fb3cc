package register

import (
	"fmt"
	"regexp"
)

// AddonID is the Gnosis extension's id in Firefox, fixed by
// browser_specific_settings.gecko.id in extension/manifest.json.
const AddonID = "gnosis@gnosis.dev"

// Family is what browsers built on one engine share about native messaging:
// the shape of the host manifest, how an extension is named in it, the file
// that shows a user profile exists and how the browser starts the host (what
// it says when it cannot is the Faults table's). Every row of Browsers names
// its family.
type Family struct {
	// ID names the family in messages ("chromium", "firefox").
	ID string
	// Field is the manifest field listing who may connect: Chromium's
	// allowed_origins holds origins, Firefox's allowed_extensions add-on ids.
	Field string
	// Ours is the Gnosis extension's entry in Field.
	Ours string
	// Marker is a file in the browser's user data folder that exists once
	// the browser has run for this user.
	Marker string
	// WinManifest is the manifest's file name in the install folder on
	// Windows, where the registry names it. Elsewhere the file is always
	// com.gnosis.host.json, in the browser's own folder.
	WinManifest string
	// ExtensionsPage is where a person loads an unpacked extension.
	ExtensionsPage string

	// entry turns an extension id into a Field entry; ok is false when the
	// id belongs to another family.
	entry func(id string) (string, bool)
	// entryProblem explains why a Field entry is malformed, or returns "";
	// harmless when the browser accepts the entry all the same.
	entryProblem func(string) (msg string, harmless bool)
}

// Families.
var (
	Chromium = Family{
		ID: "chromium", Field: "allowed_origins", Ours: Origin, Marker: "Local State",
		WinManifest: ManifestFile, ExtensionsPage: "chrome://extensions",
		entry: func(id string) (string, bool) {
			return "chrome-extension://" + id + "/", ValidID(id)
		},
		entryProblem: originProblem,
	}
	Firefox = Family{
		ID: "firefox", Field: "allowed_extensions", Ours: AddonID, Marker: "profiles.ini",
		WinManifest: HostName + ".firefox.json", ExtensionsPage: "about:debugging#/runtime/this-firefox",
		entry: func(id string) (string, bool) { return id, ValidAddonID(id) },
		entryProblem: func(id string) (string, bool) {
			if ValidAddonID(id) {
				return "", false
			}
			return fmt.Sprintf("%q: want an add-on id such as %s or {uuid}", id, AddonID), false
		},
	}
)

// Families lists every family, Chromium first.
var Families = []Family{Chromium, Firefox}

var addonIDPattern = regexp.MustCompile(`^([A-Za-z0-9._+-]*@[A-Za-z0-9._-]+|\{[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\})$`)

// ValidAddonID reports whether id looks like a Firefox add-on id: an
// email-like name@domain or a {uuid}.
func ValidAddonID(id string) bool { return addonIDPattern.MatchString(id) }

// LaunchArgs are the arguments the browser starts the host with (after the
// program): Chrome passes our origin, and on Windows a parent window;
// Firefox passes the manifest's path and our add-on id.
func (f Family) LaunchArgs(goos, manifestPath string) []string {
	if f.ID == Firefox.ID {
		return []string{manifestPath, AddonID}
	}
	if goos == "windows" {
		return []string{Origin, "--parent-window=0"}
	}
	return []string{Origin}
}

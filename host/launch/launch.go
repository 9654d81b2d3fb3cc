// Package launch interprets the command line a native-messaging host is
// started with, so the host can tell a browser launch (serve the protocol)
// from a person at a terminal (show help, run a command), and knows which
// extension is calling so it can refuse untrusted ones.
//
// Browsers pass, as of 2026:
//   - Chrome, Chromium, Edge, Brave, Vivaldi: argv[1] = "chrome-extension://<id>/",
//     and on Windows also "--parent-window=<hwnd>" (0 from a service worker).
//   - Firefox: argv[1] = the host manifest's path, argv[2] = the add-on id.
package launch

import (
	"strconv"
	"strings"
)

// OurExtensionID is the Gnosis extension's id, fixed by the public key in
// extension/manifest.json.
const OurExtensionID = "mbegimjagonemgohdcndepbpfbmlmgdd"

// OurOrigin is the caller origin Chrome passes for our extension.
const OurOrigin = "chrome-extension://" + OurExtensionID + "/"

// OurAddonID is the Gnosis extension's id in Firefox, fixed by
// browser_specific_settings.gecko.id in extension/manifest.json.
const OurAddonID = "gnosis@gnosis.dev"

// Kind says who started the process.
type Kind int

const (
	// Person: no arguments at all (double-clicked, or typed without a command).
	Person Kind = iota
	// Browser: a browser started us to speak native messaging on stdio.
	Browser
	// Command: a person typed a subcommand (Args[0]).
	Command
)

// String names the kind for logs.
func (k Kind) String() string {
	switch k {
	case Browser:
		return "browser"
	case Command:
		return "command"
	}
	return "person"
}

// Launch is what the command line says about this start.
type Launch struct {
	Kind Kind
	// Origin is the caller origin ("chrome-extension://<id>/"), or for
	// Firefox "moz-extension://<add-on id>/" built from the add-on id.
	Origin string
	// ExtensionID is the calling extension's id (Chrome id or Firefox add-on id).
	ExtensionID string
	// ParentWindow is Windows' --parent-window value, -1 when absent.
	ParentWindow int64
	// ManifestPath is the host manifest path Firefox passes.
	ManifestPath string
	// Args are the arguments of a Command launch (Args[0] is the command).
	Args []string
}

// Parse interprets args (os.Args[1:]).
func Parse(args []string) Launch {
	l := Launch{ParentWindow: -1}
	if len(args) == 0 {
		return l
	}
	for _, a := range args {
		if id, ok := chromeID(a); ok {
			l.Kind, l.Origin, l.ExtensionID = Browser, a, id
		}
		if v, ok := strings.CutPrefix(a, "--parent-window="); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				l.ParentWindow = n
			}
		}
	}
	if l.Kind == Browser {
		return l
	}
	if len(args) >= 2 && strings.HasSuffix(strings.ToLower(args[0]), ".json") && looksLikeAddonID(args[1]) {
		l.Kind, l.ManifestPath, l.ExtensionID = Browser, args[0], args[1]
		l.Origin = "moz-extension://" + args[1] + "/"
		return l
	}
	l.Kind, l.Args = Command, args
	return l
}

// chromeID returns the id of a "chrome-extension://<id>/" origin.
func chromeID(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "chrome-extension://")
	if !ok {
		return "", false
	}
	id := strings.TrimSuffix(rest, "/")
	if id == "" || strings.ContainsAny(id, "/?#") {
		return "", false
	}
	return id, true
}

// looksLikeAddonID accepts Firefox add-on ids: "name@domain" or "{uuid}".
func looksLikeAddonID(s string) bool {
	return (strings.Contains(s, "@") || strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}")) &&
		!strings.ContainsAny(s, " /\\")
}

// Firefox reports whether Firefox started us (it passes an add-on id, not an origin).
func (l Launch) Firefox() bool {
	return l.Kind == Browser && strings.HasPrefix(l.Origin, "moz-extension://")
}

// Trusted reports whether the caller is our extension (our Chrome id from
// Chrome, our add-on id from Firefox) or one whose id is in extra (the config
// file's "extensions"). Only browser launches can be trusted.
func (l Launch) Trusted(extra []string) bool {
	if l.Kind != Browser || l.ExtensionID == "" {
		return false
	}
	if l.Firefox() {
		if l.ExtensionID == OurAddonID {
			return true
		}
	} else if l.ExtensionID == OurExtensionID {
		return true
	}
	for _, id := range extra {
		if id == l.ExtensionID {
			return true
		}
	}
	return false
}

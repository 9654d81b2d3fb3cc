package register

import "strings"

// HostName is the native-messaging host name the extension connects to.
const HostName = "com.gnosis.host"

// ExtensionID is the id of the Gnosis extension, fixed by the public key in
// extension/manifest.json.
const ExtensionID = "mbegimjagonemgohdcndepbpfbmlmgdd"

// Browser is one row of the registration table: where one browser (or one
// channel of it) looks for host manifests on each operating system. An empty
// field means the browser does not exist there (Edge Canary on Linux) or has
// no place of its own (Brave reads Chrome's system folder and Windows key).
type Browser struct {
	// ID is the name used on the command line (--browsers chrome-beta).
	ID string
	// Name is what people call it.
	Name string
	// Family says which manifest the browser reads and how it starts the host.
	Family Family

	// LinuxDir is the browser's user data folder relative to
	// $XDG_CONFIG_HOME (~/.config), or to the home folder when it starts
	// with "~/". Host manifests go in its NativeMessagingHosts sub-folder
	// unless LinuxHosts is set.
	LinuxDir string
	// LinuxHosts, when set, is the user's manifest folder, relative like
	// LinuxDir (Firefox: ~/.mozilla/native-messaging-hosts).
	LinuxHosts string
	// LinuxSystem is the system-wide manifest folder (--system).
	LinuxSystem string
	// LinuxCommands are executables whose presence on PATH means the browser
	// is installed.
	LinuxCommands []string

	// MacDir is the user data folder relative to ~/Library/Application
	// Support; host manifests go in its NativeMessagingHosts sub-folder
	// unless MacHosts is set.
	MacDir string
	// MacHosts, when set, is the user's manifest folder relative to
	// ~/Library/Application Support.
	MacHosts string
	// MacSystem is the system-wide manifest folder (--system).
	MacSystem string
	// MacApp is the application bundle in /Applications.
	MacApp string

	// WinKey is the registry path (under HKCU, or HKLM with --system) whose
	// NativeMessagingHosts sub-key the browser reads. Channels of Chrome and
	// Edge share their stable channel's key; Brave and Vivaldi read Chrome's.
	WinKey string
	// WinKeyAlso is a second key install also sets: Chromium builds read
	// Chrome's key (the path is fixed in Chromium's source, whatever the
	// branding), yet Software\Chromium is documented and is one of Edge's
	// fallbacks, so Chromium gets both.
	WinKeyAlso string
	// WinVendorKey is the registry key the browser's installer creates;
	// its presence means the browser is installed.
	WinVendorKey string
	// WinDataDir is the user data folder relative to %LOCALAPPDATA% (empty
	// when it lives elsewhere: then only WinVendorKey tells it is installed).
	WinDataDir string

	// Flatpak and Snap name the sandboxed packages of the browser, whose
	// profiles (~/.var/app/<Flatpak>, ~/snap/<Snap>) cannot see host manifests.
	Flatpak string
	Snap    string
}

// Windows registry paths read by the Chromium family.
const (
	winChrome   = `Software\Google\Chrome`
	winChromium = `Software\Chromium`
	winEdge     = `Software\Microsoft\Edge`
	winMozilla  = `Software\Mozilla`
)

// Browsers is the registration table, in the order install and doctor print it.
var Browsers = []Browser{
	{
		ID: "chrome", Name: "Google Chrome", Family: Chromium,
		LinuxDir: "google-chrome", LinuxSystem: "/etc/opt/chrome/native-messaging-hosts",
		LinuxCommands: []string{"google-chrome", "google-chrome-stable"},
		MacDir:        "Google/Chrome", MacSystem: "/Library/Google/Chrome/NativeMessagingHosts", MacApp: "Google Chrome",
		WinKey: winChrome, WinVendorKey: `Software\Google\Chrome`, WinDataDir: `Google\Chrome\User Data`,
		Flatpak: "com.google.Chrome",
	},
	{
		ID: "chrome-beta", Name: "Google Chrome Beta", Family: Chromium,
		LinuxDir: "google-chrome-beta", LinuxSystem: "/etc/opt/chrome/native-messaging-hosts",
		LinuxCommands: []string{"google-chrome-beta"},
		MacDir:        "Google/Chrome Beta", MacSystem: "/Library/Google/Chrome/NativeMessagingHosts", MacApp: "Google Chrome Beta",
		WinKey: winChrome, WinVendorKey: `Software\Google\Chrome Beta`, WinDataDir: `Google\Chrome Beta\User Data`,
	},
	{
		ID: "chrome-dev", Name: "Google Chrome Dev", Family: Chromium,
		LinuxDir: "google-chrome-unstable", LinuxSystem: "/etc/opt/chrome/native-messaging-hosts",
		LinuxCommands: []string{"google-chrome-unstable"},
		MacDir:        "Google/Chrome Dev", MacSystem: "/Library/Google/Chrome/NativeMessagingHosts", MacApp: "Google Chrome Dev",
		WinKey: winChrome, WinVendorKey: `Software\Google\Chrome Dev`, WinDataDir: `Google\Chrome Dev\User Data`,
	},
	{
		ID: "chrome-canary", Name: "Google Chrome Canary", Family: Chromium,
		LinuxDir: "google-chrome-canary", LinuxSystem: "/etc/opt/chrome/native-messaging-hosts",
		LinuxCommands: []string{"google-chrome-canary"},
		MacDir:        "Google/Chrome Canary", MacSystem: "/Library/Google/Chrome/NativeMessagingHosts", MacApp: "Google Chrome Canary",
		WinKey: winChrome, WinVendorKey: `Software\Google\Chrome SxS`, WinDataDir: `Google\Chrome SxS\User Data`,
	},
	{
		ID: "chromium", Name: "Chromium", Family: Chromium,
		LinuxDir: "chromium", LinuxSystem: "/etc/chromium/native-messaging-hosts",
		LinuxCommands: []string{"chromium", "chromium-browser"},
		MacDir:        "Chromium", MacSystem: "/Library/Application Support/Chromium/NativeMessagingHosts", MacApp: "Chromium",
		WinKey: winChrome, WinKeyAlso: winChromium, WinVendorKey: `Software\Chromium`, WinDataDir: `Chromium\User Data`,
		Flatpak: "org.chromium.Chromium", Snap: "chromium",
	},
	{
		ID: "edge", Name: "Microsoft Edge", Family: Chromium,
		LinuxDir: "microsoft-edge", LinuxSystem: "/etc/opt/edge/native-messaging-hosts",
		LinuxCommands: []string{"microsoft-edge", "microsoft-edge-stable"},
		MacDir:        "Microsoft Edge", MacSystem: "/Library/Microsoft/Edge/NativeMessagingHosts", MacApp: "Microsoft Edge",
		WinKey: winEdge, WinVendorKey: `Software\Microsoft\Edge`, WinDataDir: `Microsoft\Edge\User Data`,
		Flatpak: "com.microsoft.Edge",
	},
	{
		ID: "edge-beta", Name: "Microsoft Edge Beta", Family: Chromium,
		LinuxDir: "microsoft-edge-beta", LinuxSystem: "/etc/opt/edge/native-messaging-hosts",
		LinuxCommands: []string{"microsoft-edge-beta"},
		MacDir:        "Microsoft Edge Beta", MacSystem: "/Library/Microsoft/Edge/NativeMessagingHosts", MacApp: "Microsoft Edge Beta",
		WinKey: winEdge, WinVendorKey: `Software\Microsoft\Edge Beta`, WinDataDir: `Microsoft\Edge Beta\User Data`,
	},
	{
		ID: "edge-dev", Name: "Microsoft Edge Dev", Family: Chromium,
		LinuxDir: "microsoft-edge-dev", LinuxSystem: "/etc/opt/edge/native-messaging-hosts",
		LinuxCommands: []string{"microsoft-edge-dev"},
		MacDir:        "Microsoft Edge Dev", MacSystem: "/Library/Microsoft/Edge/NativeMessagingHosts", MacApp: "Microsoft Edge Dev",
		WinKey: winEdge, WinVendorKey: `Software\Microsoft\Edge Dev`, WinDataDir: `Microsoft\Edge Dev\User Data`,
	},
	{
		ID: "edge-canary", Name: "Microsoft Edge Canary", Family: Chromium,
		MacDir: "Microsoft Edge Canary", MacSystem: "/Library/Microsoft/Edge/NativeMessagingHosts", MacApp: "Microsoft Edge Canary",
		WinKey: winEdge, WinVendorKey: `Software\Microsoft\Edge SxS`, WinDataDir: `Microsoft\Edge SxS\User Data`,
	},
	{
		ID: "brave", Name: "Brave", Family: Chromium,
		LinuxDir: "BraveSoftware/Brave-Browser", LinuxSystem: "/etc/opt/chrome/native-messaging-hosts",
		LinuxCommands: []string{"brave-browser", "brave"},
		MacDir:        "BraveSoftware/Brave-Browser", MacSystem: "/Library/Google/Chrome/NativeMessagingHosts", MacApp: "Brave Browser",
		WinKey: winChrome, WinVendorKey: `Software\BraveSoftware\Brave-Browser`, WinDataDir: `BraveSoftware\Brave-Browser\User Data`,
		Flatpak: "com.brave.Browser", Snap: "brave",
	},
	{
		ID: "vivaldi", Name: "Vivaldi", Family: Chromium,
		LinuxDir: "vivaldi", LinuxSystem: "/etc/opt/vivaldi/native-messaging-hosts",
		LinuxCommands: []string{"vivaldi", "vivaldi-stable"},
		MacDir:        "Vivaldi", MacSystem: "/Library/Application Support/Chromium/NativeMessagingHosts", MacApp: "Vivaldi",
		WinKey: winChrome, WinVendorKey: `Software\Vivaldi`, WinDataDir: `Vivaldi\User Data`,
		Flatpak: "com.vivaldi.Vivaldi",
	},
	{
		// Firefox's editions (ESR, Developer Edition, Nightly) share one
		// manifest folder and one registry key.
		ID: "firefox", Name: "Mozilla Firefox", Family: Firefox,
		LinuxDir: "~/.mozilla/firefox", LinuxHosts: "~/.mozilla/native-messaging-hosts",
		LinuxSystem:   "/usr/lib/mozilla/native-messaging-hosts",
		LinuxCommands: []string{"firefox", "firefox-esr", "firefox-developer-edition", "firefox-nightly"},
		MacDir:        "Firefox", MacHosts: "Mozilla/NativeMessagingHosts",
		MacSystem: "/Library/Application Support/Mozilla/NativeMessagingHosts", MacApp: "Firefox",
		WinKey: winMozilla, WinVendorKey: `Software\Mozilla\Mozilla Firefox`,
		Flatpak: "org.mozilla.firefox",
	},
}

// EdgeKeyOrder is the order in which Edge on Windows looks for a host's key
// under each root; it uses the first key it finds and ignores the rest.
var EdgeKeyOrder = []string{winEdge, winChromium, winChrome}

// Lookup returns the browser with the given id.
func Lookup(id string) (Browser, bool) {
	for _, b := range Browsers {
		if b.ID == strings.ToLower(strings.TrimSpace(id)) {
			return b, true
		}
	}
	return Browser{}, false
}

// Supported reports whether the browser exists on the operating system goos.
func (b Browser) Supported(goos string) bool {
	switch goos {
	case "linux":
		return b.LinuxDir != ""
	case "darwin":
		return b.MacDir != ""
	case "windows":
		return b.WinKey != ""
	}
	return false
}

// IDs returns the ids of all browsers supported on goos, in table order.
func IDs(goos string) []string {
	var ids []string
	for _, b := range Browsers {
		if b.Supported(goos) {
			ids = append(ids, b.ID)
		}
	}
	return ids
}

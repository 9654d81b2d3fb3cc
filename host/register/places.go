package register

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// Env is the part of a machine registration depends on: the operating system
// and the folders taken from the environment. Tests build one by hand to
// compute another system's places.
type Env struct {
	// GOOS is "linux", "darwin" or "windows".
	GOOS string
	// Home is the user's home folder.
	Home string
	// ConfigHome is $XDG_CONFIG_HOME, or Home/.config (Linux).
	ConfigHome string
	// DataHome is $XDG_DATA_HOME, or Home/.local/share (Linux).
	DataHome string
	// LocalAppData is %LOCALAPPDATA% (Windows).
	LocalAppData string
	// ConfigFile is the gnosis-host configuration file:
	// $GNOSIS_CONFIG, else the user config folder's gnosis/config.json.
	ConfigFile string
	// PathDirs are the folders of $PATH, where a shell finds commands.
	PathDirs []string
	// SystemRoot is the folder the system-wide manifest folders are under
	// ("" for the machine's own, /): $GNOSIS_SYSTEM_ROOT, a staging tree
	// for `install --system` (as DESTDIR is for make install), and what
	// tests set so that a Gnosis installed on the machine is not theirs.
	SystemRoot string
}

// EnvSystemRoot names the variable CurrentEnv reads Env.SystemRoot from.
const EnvSystemRoot = "GNOSIS_SYSTEM_ROOT"

// CurrentEnv reads the Env of the running process.
func CurrentEnv() (Env, error) {
	e := Env{GOOS: runtime.GOOS}
	home, err := os.UserHomeDir()
	if err != nil {
		return e, fmt.Errorf("find home folder: %w", err)
	}
	e.Home = home
	e.ConfigHome = os.Getenv("XDG_CONFIG_HOME")
	if e.ConfigHome == "" || !isAbs(e.GOOS, e.ConfigHome) {
		e.ConfigHome = path.Join(toSlash(e.GOOS, home), ".config")
	}
	e.DataHome = os.Getenv("XDG_DATA_HOME")
	if e.DataHome == "" || !isAbs(e.GOOS, e.DataHome) {
		e.DataHome = path.Join(toSlash(e.GOOS, home), ".local", "share")
	}
	e.LocalAppData = os.Getenv("LOCALAPPDATA")
	if e.GOOS == "windows" && e.LocalAppData == "" {
		e.LocalAppData = join("windows", home, "AppData", "Local")
	}
	e.PathDirs = filepath.SplitList(os.Getenv("PATH"))
	e.SystemRoot = os.Getenv(EnvSystemRoot)
	e.ConfigFile = os.Getenv("GNOSIS_CONFIG")
	if e.ConfigFile == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return e, fmt.Errorf("find config folder: %w", err)
		}
		e.ConfigFile = join(e.GOOS, dir, "gnosis", "config.json")
	}
	return e, nil
}

// Scope says whether a registration is for the current user or the whole
// machine (--system).
type Scope int

// Scopes.
const (
	User Scope = iota
	System
)

func (s Scope) String() string {
	if s == System {
		return "system"
	}
	return "user"
}

// Root is a Windows registry hive.
type Root string

// Hives used by registration.
const (
	HKCU Root = "HKCU"
	HKLM Root = "HKLM"
)

// RootFor returns the hive a scope registers in.
func RootFor(s Scope) Root {
	if s == System {
		return HKLM
	}
	return HKCU
}

// ErrUnsupported means a browser does not exist on an operating system, or
// has no place of its own at the asked scope.
var ErrUnsupported = errors.New("browser not supported on this system")

// ManifestFile is the host manifest's file name.
const ManifestFile = HostName + ".json"

// InstallDir is the stable per-user folder the binary, the Windows manifest
// and the install record are copied to.
func (e Env) InstallDir() string {
	switch e.GOOS {
	case "windows":
		return join(e.GOOS, e.LocalAppData, "Gnosis")
	case "darwin":
		return join(e.GOOS, e.Home, "Library", "Application Support", "Gnosis")
	default:
		return join(e.GOOS, e.DataHome, "gnosis")
	}
}

// BinaryName is the host executable's file name on the Env's system.
func (e Env) BinaryName() string {
	if e.GOOS == "windows" {
		return "gnosis-host.exe"
	}
	return "gnosis-host"
}

// InstalledBinary is where install copies the host executable.
func (e Env) InstalledBinary() string { return join(e.GOOS, e.InstallDir(), e.BinaryName()) }

// RecordFile is the install record: what install wrote, for uninstall.
func (e Env) RecordFile() string { return join(e.GOOS, e.InstallDir(), "install-record.json") }

// ManifestPath is where the host manifest for browser b is written. On
// Windows every browser of a family shares one manifest in the install folder
// (the registry names it); elsewhere it goes into the browser's own folder.
func (e Env) ManifestPath(b Browser, s Scope) (string, error) {
	if !b.Supported(e.GOOS) {
		return "", fmt.Errorf("%s on %s: %w", b.Name, e.GOOS, ErrUnsupported)
	}
	switch e.GOOS {
	case "windows":
		return join(e.GOOS, e.InstallDir(), b.Family.WinManifest), nil
	case "darwin":
		if s == System {
			return join(e.GOOS, e.underSystemRoot(b.MacSystem), ManifestFile), nil
		}
		hosts := b.MacHosts
		if hosts == "" {
			hosts = b.MacDir + "/NativeMessagingHosts"
		}
		return join(e.GOOS, e.Home, "Library", "Application Support", hosts, ManifestFile), nil
	default:
		if s == System {
			return join(e.GOOS, e.underSystemRoot(b.LinuxSystem), ManifestFile), nil
		}
		hosts := b.LinuxHosts
		if hosts == "" {
			hosts = b.LinuxDir + "/NativeMessagingHosts"
		}
		return join(e.GOOS, e.linuxPlace(hosts), ManifestFile), nil
	}
}

// underSystemRoot is the system-wide folder dir under e.SystemRoot.
func (e Env) underSystemRoot(dir string) string {
	if e.SystemRoot == "" {
		return dir
	}
	return join(e.GOOS, e.SystemRoot, dir)
}

// linuxPlace resolves a Linux folder of the table: "~/..." under the home
// folder, anything else under $XDG_CONFIG_HOME.
func (e Env) linuxPlace(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return join(e.GOOS, e.Home, rest)
	}
	return join(e.GOOS, e.ConfigHome, p)
}

// OurManifests are the manifest files install writes in the install folder
// on Windows, one per family.
func (e Env) OurManifests() []string {
	var out []string
	for _, f := range Families {
		out = append(out, join(e.GOOS, e.InstallDir(), f.WinManifest))
	}
	return out
}

// RegistryKeys are the Windows keys whose default value names the manifest,
// relative to their hive: the one the browser reads first, then WinKeyAlso.
func (e Env) RegistryKeys(b Browser) ([]string, error) {
	if e.GOOS != "windows" || b.WinKey == "" {
		return nil, fmt.Errorf("%s registry key on %s: %w", b.Name, e.GOOS, ErrUnsupported)
	}
	keys := []string{b.WinKey + `\NativeMessagingHosts\` + HostName}
	if b.WinKeyAlso != "" {
		keys = append(keys, b.WinKeyAlso+`\NativeMessagingHosts\`+HostName)
	}
	return keys, nil
}

// DataDir is the browser's user data folder; its family's Marker file
// ("Local State", "profiles.ini") exists once the browser has run for this
// user.
func (e Env) DataDir(b Browser) string {
	switch e.GOOS {
	case "windows":
		if b.WinDataDir == "" {
			return ""
		}
		return join(e.GOOS, e.LocalAppData, b.WinDataDir)
	case "darwin":
		if b.MacDir == "" {
			return ""
		}
		return join(e.GOOS, e.Home, "Library", "Application Support", b.MacDir)
	default:
		if b.LinuxDir == "" {
			return ""
		}
		return e.linuxPlace(b.LinuxDir)
	}
}

// SandboxDirs are the folders of the browser's Flatpak and Snap profiles on
// Linux; a browser installed that way cannot see the host manifest.
func (e Env) SandboxDirs(b Browser) []string {
	if e.GOOS != "linux" {
		return nil
	}
	var dirs []string
	if b.Flatpak != "" {
		dirs = append(dirs, join(e.GOOS, e.Home, ".var", "app", b.Flatpak))
	}
	if b.Snap != "" {
		dirs = append(dirs, join(e.GOOS, e.Home, "snap", b.Snap))
	}
	return dirs
}

// join joins path elements with the separator of goos, so that Windows
// places can be computed (and tested) on Linux.
func join(goos string, elem ...string) string {
	for i := range elem {
		elem[i] = toSlash(goos, elem[i])
	}
	p := path.Join(elem...)
	if goos == "windows" {
		return strings.ReplaceAll(p, "/", `\`)
	}
	return p
}

func toSlash(goos, p string) string {
	if goos == "windows" {
		return strings.ReplaceAll(p, `\`, "/")
	}
	return p
}

// isAbs reports whether p is absolute on goos (C:\... or \\server\... on Windows).
func isAbs(goos, p string) bool {
	if goos != "windows" {
		return strings.HasPrefix(p, "/")
	}
	p = toSlash(goos, p)
	if strings.HasPrefix(p, "//") {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && p[2] == '/' &&
		(('a' <= p[0] && p[0] <= 'z') || ('A' <= p[0] && p[0] <= 'Z'))
}

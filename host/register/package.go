package register

// The Linux packages (.deb, .rpm; install/release builds them) install the
// host for every user and register it system-wide: their manifests, in each
// browser's LinuxSystem folder, name PackageBinary. The package manager owns
// those files, so uninstall leaves them to it, and the doctor says a
// registration is system-wide.

// PackageBinary is where the Linux packages install gnosis-host.
const PackageBinary = "/usr/lib/gnosis/gnosis-host"

// PackageName is the Linux packages' name (apt remove gnosis-host).
const PackageName = "gnosis-host"

// packaged reports whether the manifest m, found at scope s, is one the
// Linux packages installed.
func packaged(m Manifest, s Scope) bool { return s == System && m.Path == PackageBinary }

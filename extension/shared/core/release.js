// Where the release's files are, generated from install/release/names.go by
// go run ./install/release -write-release-js (a test keeps this copy in step). make dist
// DOWNLOAD_URL=... (a fork or a mirror) packs the extension with its own location.
//
// A file's address is DOWNLOAD_URL + its name, with {version} replaced by the extension's
// version (chrome.runtime.getManifest().version) in both. SHA256SUMS lists every file's sha256.

/** The folder of this version's release files; ends with a slash. */
export const DOWNLOAD_URL = 'https://github.com/gnosis/gnosis/releases/download/v{version}/';

/** The checksum file in that folder. */
export const CHECKSUMS = 'SHA256SUMS';

/**
 * The host's packages per GOOS/GOARCH (chrome.runtime.getPlatformInfo() in Go's
 * names: win is windows, mac darwin, x86-64 amd64), the one to offer first first:
 * msi (Windows, per user, no administrator), deb and rpm (Linux, system-wide),
 * zip (the binary and its install scripts).
 */
export const HOST_PACKAGES = Object.freeze({
  'windows/amd64': ['gnosis-{version}-windows-amd64.msi', 'gnosis-{version}-windows-amd64.zip'],
  'windows/arm64': ['gnosis-{version}-windows-arm64.zip'],
  'darwin/amd64': ['gnosis-{version}-darwin-amd64.zip'],
  'darwin/arm64': ['gnosis-{version}-darwin-arm64.zip'],
  'linux/amd64': ['gnosis-{version}-linux-amd64.deb', 'gnosis-{version}-linux-amd64.rpm', 'gnosis-{version}-linux-amd64.zip'],
  'linux/arm64': ['gnosis-{version}-linux-arm64.deb', 'gnosis-{version}-linux-arm64.rpm', 'gnosis-{version}-linux-arm64.zip'],
});

/**
 * The extension's packages: chrome is the one a person installs by hand in Chrome,
 * Edge, Brave, Vivaldi or Chromium (unzip, Load unpacked; its key gives the id every
 * gnosis-host trusts), chromeStore the one uploaded to the Chrome Web Store (no key),
 * firefox the add-on.
 */
export const EXTENSION_PACKAGES = Object.freeze({
  chrome: 'gnosis-{version}-chrome.zip',
  chromeStore: 'gnosis-{version}-chrome-store.zip',
  firefox: 'gnosis-{version}-firefox.xpi',
});

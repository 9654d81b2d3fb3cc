package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The release's download location and file names: one scheme, used by make
// dist to name what it writes and exported to the extension (ReleaseJS) so
// that the options page can fetch the host package for the person's system.
//
//	<download URL>gnosis-<version>-<goos>-<goarch>.<kind>   the host: msi, deb, rpm, zip
//	<download URL>gnosis-<version>-chrome.zip               the extension to load unpacked in Chrome, Edge, ...
//	<download URL>gnosis-<version>-chrome-store.zip         the extension to upload to the Chrome Web Store
//	<download URL>gnosis-<version>-firefox.xpi              the extension for Firefox
//	<download URL>SHA256SUMS                                 sha256sum -c reads it
//
// The download URL may hold {version}, replaced by the version.

// DefaultDownloadURL is where a release's files are published: the
// project's GitHub release of that version. A fork or a mirror builds with
// make dist DOWNLOAD_URL=... (the -download-url flag).
const DefaultDownloadURL = "https://github.com/gnosis/gnosis/releases/download/v{version}/"

// VersionPlaceholder stands for the version in a download URL and in the
// file names ReleaseJS lists.
const VersionPlaceholder = "{version}"

// Checksums is the checksum file's name.
const Checksums = "SHA256SUMS"

// ReleaseJS is the extension module, relative to extension/, that holds the
// download location and the host packages per platform. Its committed copy
// carries DefaultDownloadURL; make dist writes the -download-url into the
// copies it packs.
const ReleaseJS = "shared/core/release.js"

// hostKinds are the host's packages for one platform, the one to offer first
// first: an installer where there is one, then the zip with the scripts.
// wixl builds x86 and x64 MSIs only, so Windows on Arm gets the zip (its
// gnosis-host.exe registers itself on a double-click).
func hostKinds(goos, goarch string) []string {
	switch {
	case goos == "windows" && goarch == "amd64":
		return []string{"msi", "zip"}
	case goos == "linux":
		return []string{"deb", "rpm", "zip"}
	}
	return []string{"zip"}
}

// hostFile is the name of one host package.
func hostFile(version, goos, goarch, kind string) string {
	return fmt.Sprintf("gnosis-%s-%s-%s.%s", version, goos, goarch, kind)
}

// chromeFile, chromeStoreFile and firefoxFile name the extension's
// packages: the Chrome one a person loads unpacked (with the key that fixes
// the id the host trusts), the one uploaded to the Chrome Web Store (no
// key), and Firefox's.
func chromeFile(version string) string      { return "gnosis-" + version + "-chrome.zip" }
func chromeStoreFile(version string) string { return "gnosis-" + version + "-chrome-store.zip" }
func firefoxFile(version string) string     { return "gnosis-" + version + "-firefox.xpi" }

// checkDownloadURL accepts an http(s) URL ending in "/", to which file names
// are appended.
func checkDownloadURL(u string) error {
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") || !strings.HasSuffix(u, "/") {
		return fmt.Errorf("download URL %q: want http(s)://.../ ending in a slash ({version} is replaced by the version)", u)
	}
	return nil
}

// releaseJS is the text of ReleaseJS for a download URL: the URL and, per
// GOOS/GOARCH, the host's packages, with {version} left for the extension
// to fill in from its manifest.
func releaseJS(downloadURL string, targets []string) []byte {
	packages := map[string][]string{}
	for _, t := range targets {
		goos, goarch, _ := strings.Cut(t, "/")
		for _, kind := range hostKinds(goos, goarch) {
			packages[t] = append(packages[t], hostFile(VersionPlaceholder, goos, goarch, kind))
		}
	}
	var b bytes.Buffer
	b.WriteString(`// Where the release's files are, generated from install/release/names.go by
// go run ./install/release -write-release-js (a test keeps this copy in step). make dist
// DOWNLOAD_URL=... (a fork or a mirror) packs the extension with its own location.
//
// A file's address is DOWNLOAD_URL + its name, with {version} replaced by the extension's
// version (chrome.runtime.getManifest().version) in both. SHA256SUMS lists every file's sha256.

/** The folder of this version's release files; ends with a slash. */
export const DOWNLOAD_URL = `)
	b.WriteString(jsString(downloadURL))
	b.WriteString(`;

/** The checksum file in that folder. */
export const CHECKSUMS = `)
	b.WriteString(jsString(Checksums))
	b.WriteString(`;

/**
 * The host's packages per GOOS/GOARCH (chrome.runtime.getPlatformInfo() in Go's
 * names: win is windows, mac darwin, x86-64 amd64), the one to offer first first:
 * msi (Windows, per user, no administrator), deb and rpm (Linux, system-wide),
 * zip (the binary and its install scripts).
 */
export const HOST_PACKAGES = Object.freeze({
`)
	for _, t := range targets {
		names := make([]string, len(packages[t]))
		for i, n := range packages[t] {
			names[i] = jsString(n)
		}
		fmt.Fprintf(&b, "  %s: [%s],\n", jsString(t), strings.Join(names, ", "))
	}
	b.WriteString(`});

/**
 * The extension's packages: chrome is the one a person installs by hand in Chrome,
 * Edge, Brave, Vivaldi or Chromium (unzip, Load unpacked; its key gives the id every
 * gnosis-host trusts), chromeStore the one uploaded to the Chrome Web Store (no key),
 * firefox the add-on.
 */
export const EXTENSION_PACKAGES = Object.freeze({
`)
	fmt.Fprintf(&b, "  chrome: %s,\n  chromeStore: %s,\n  firefox: %s,\n});\n",
		jsString(chromeFile(VersionPlaceholder)), jsString(chromeStoreFile(VersionPlaceholder)), jsString(firefoxFile(VersionPlaceholder)))
	return b.Bytes()
}

// jsString quotes s as a single-quoted JavaScript string.
func jsString(s string) string {
	q, _ := json.Marshal(s)
	inner := strings.ReplaceAll(string(q[1:len(q)-1]), `\"`, `"`)
	return "'" + strings.ReplaceAll(inner, "'", `\'`) + "'"
}

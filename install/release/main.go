// Command release builds Gnosis's release into dist/: for every platform the
// host with its installer, the extension's packages and SHA256SUMS.
// One version, read from the VERSION file, is stamped into gnosis-host
// (main.version), every package's metadata, the extension's manifests and
// every file name; the names follow one scheme (names.go), which the
// extension reads from shared/core/release.js to fetch the host for the
// person's system.
//
//	gnosis-<v>-windows-amd64.msi   per-user MSI (wixl): the host, its manifests, the HKCU keys
//	gnosis-<v>-linux-<arch>.deb    system-wide: /usr/lib/gnosis/gnosis-host, every browser's
//	gnosis-<v>-linux-<arch>.rpm    system manifest folder (nfpm)
//	gnosis-<v>-<os>-<arch>.zip     the binary, its install scripts, the unpacked extension, the docs
//	gnosis-<v>-chrome.zip          the extension to load unpacked in Chrome, Edge, ... (its key: the id the host trusts)
//	gnosis-<v>-chrome-store.zip    the extension to upload to the Chrome Web Store (no key)
//	gnosis-<v>-firefox.xpi         the extension for Firefox (the chat bridge; web-ext lint clean)
//	SHA256SUMS                     sha256sum -c checks them all
//
// No package carries an executable inside the extension.
//
// Windows binaries are signed with osslsigncode when a certificate is given
// (unsigned native hosts get quarantined by antivirus):
//
//	SIGN_CERT + SIGN_KEY   PEM or DER certificate (chain) and private key
//	SIGN_PFX [+ SIGN_PASS] PKCS#12 file and its password
//	SIGN_TIMESTAMP         optional RFC 3161 timestamp server URL
//
// Usage (make dist runs it from the repository root):
//
//	go run ./install/release [-out dist] [-download-url URL] [-targets windows/amd64,...] [-packages msi,deb,...]
//	go run ./install/release -write-release-js
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Targets are the platforms a release covers.
var Targets = []string{"windows/amd64", "windows/arm64", "darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64"}

// Kinds are the packages a release holds: the host's (hostKinds says which
// each platform gets) and the extension's.
var Kinds = []string{"msi", "deb", "rpm", "zip", "chrome", "chrome-store", "firefox"}

// config is one run of the release tool.
type config struct {
	version     string
	out         string
	downloadURL string
	targets     []string
	kinds       map[string]bool
	log         io.Writer // one line per file written (stdout; tests discard it)
}

func main() {
	out := flag.String("out", "dist", "folder for the release files")
	url := flag.String("download-url", DefaultDownloadURL, "where the release is published, {version} replaced (a fork or a mirror)")
	targets := flag.String("targets", strings.Join(Targets, ","), "comma-separated GOOS/GOARCH list")
	kinds := flag.String("packages", strings.Join(Kinds, ","), "comma-separated packages to build")
	writeJS := flag.Bool("write-release-js", false, "write extension/"+ReleaseJS+" for -download-url, then stop")
	flag.Parse()
	if err := start(*out, *url, *targets, *kinds, *writeJS); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func start(out, url, targets, kinds string, writeJS bool) error {
	if err := checkDownloadURL(url); err != nil {
		return err
	}
	if writeJS {
		return os.WriteFile(filepath.Join(extensionDir, filepath.FromSlash(ReleaseJS)), releaseJS(url, Targets), 0o644)
	}
	version, err := readVersion(VersionFile)
	if err != nil {
		return err
	}
	c := config{version: version, out: out, downloadURL: url, kinds: map[string]bool{}, log: os.Stdout}
	for _, t := range strings.Split(targets, ",") {
		c.targets = append(c.targets, strings.TrimSpace(t))
	}
	for _, k := range strings.Split(kinds, ",") {
		k = strings.TrimSpace(k)
		if !contains(Kinds, k) {
			return fmt.Errorf("package %q: want some of %s", k, strings.Join(Kinds, ","))
		}
		c.kinds[k] = true
	}
	return run(c)
}

// run builds the release c asks for and writes SHA256SUMS over what it
// wrote. A package whose tools are missing (prerequisites) is skipped from
// the start, saying which install command brings them, and one that fails
// does not stop the others: run builds everything it can, keeps it, and
// then fails naming each package it did not build and why.
func run(c config) error {
	work, err := os.MkdirTemp("", "gnosis-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	sign, err := signer()
	if err != nil {
		return err
	}
	ext, err := readExtension(c.version, c.downloadURL)
	if err != nil {
		return err
	}
	unmet := unmetPrerequisites(c.kinds)
	for _, kind := range sortedKeys(unmet) {
		fmt.Fprintf(c.log, "skipped  %s; building the rest\n", unmet[kind])
	}
	var written []string
	var notBuilt []string // "<file> (<why>)"
	wrote := func(name string) {
		written = append(written, name)
		fmt.Fprintf(c.log, "packed   %s\n", filepath.Join(c.out, name))
	}
	failed := func(name string, err error) {
		notBuilt = append(notBuilt, fmt.Sprintf("%s (%v)", name, err))
		fmt.Fprintf(c.log, "FAILED   %s: %v\n", filepath.Join(c.out, name), err)
	}
	for _, t := range c.targets {
		goos, goarch, ok := strings.Cut(t, "/")
		if !ok {
			return fmt.Errorf("target %q: want GOOS/GOARCH", t)
		}
		var kinds []string
		for _, k := range hostKinds(goos, goarch) {
			switch {
			case !c.kinds[k]:
			case unmet[k] != "":
				notBuilt = append(notBuilt, fmt.Sprintf("%s (%s)", hostFile(c.version, goos, goarch, k), unmet[k]))
			default:
				kinds = append(kinds, k)
			}
		}
		if len(kinds) == 0 {
			continue
		}
		bin := filepath.Join(work, goos+"-"+goarch, binaryName(goos))
		if err := buildTarget(goos, goarch, c, bin, sign); err != nil {
			for _, kind := range kinds {
				failed(hostFile(c.version, goos, goarch, kind), err)
			}
			continue
		}
		lg, legalErr := hostLegal(bin, nil)
		for _, kind := range kinds {
			name := hostFile(c.version, goos, goarch, kind)
			dst := filepath.Join(c.out, name)
			err := legalErr
			if err == nil {
				switch kind {
				case "zip":
					err = packHostZip(dst, strings.TrimSuffix(name, ".zip"), goos, bin, ext)
				case "msi":
					err = buildMSI(dst, c.version, goarch, bin, filepath.Join(work, "msi-"+goarch), lg)
				case "deb", "rpm":
					err = buildLinuxPackage(dst, kind, c.version, goarch, bin, filepath.Join(work, kind+"-"+goarch), lg)
				}
			}
			if err != nil {
				failed(name, err)
				continue
			}
			wrote(name)
		}
	}
	for _, b := range []struct {
		kind, name string
		flavour    func(map[string]any) error
	}{{"chrome", chromeFile(c.version), chromeManifest}, {"chrome-store", chromeStoreFile(c.version), chromeStoreManifest},
		{"firefox", firefoxFile(c.version), firefoxManifest}} {
		if !c.kinds[b.kind] {
			continue
		}
		if err := ext.pack(filepath.Join(c.out, b.name), b.flavour); err != nil {
			failed(b.name, err)
			continue
		}
		wrote(b.name)
	}
	sort.Strings(written)
	if err := writeChecksums(c.out, written); err != nil {
		return err
	}
	fmt.Fprintf(c.log, "wrote    %s\n", filepath.Join(c.out, Checksums))
	if len(notBuilt) > 0 {
		return fmt.Errorf("%d of %d packages built and kept in %s (with %s); not built:\n  %s",
			len(written), len(written)+len(notBuilt), c.out, Checksums, strings.Join(notBuilt, "\n  "))
	}
	return nil
}

// buildTarget builds the host for goos/goarch into bin and signs it when a
// signer is set and the target is Windows.
func buildTarget(goos, goarch string, c config, bin string, sign func(string) error) error {
	if err := buildHost(goos, goarch, c.version, bin); err != nil {
		return err
	}
	if goos == "windows" && sign != nil {
		if err := sign(bin); err != nil {
			return fmt.Errorf("sign %s/%s: %w", goos, goarch, err)
		}
		fmt.Fprintf(c.log, "signed   %s/%s\n", goos, goarch)
	}
	return nil
}

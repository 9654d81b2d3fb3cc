package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// FirefoxPackage is the Firefox package's file name in the output folder.
const FirefoxPackage = "gnosis-firefox.xpi"

// firefoxDrops are the manifest keys Firefox has no use for: the Chrome
// public key (Firefox names the add-on by browser_specific_settings.gecko.id),
// the Side Panel (Firefox has sidebar_action) and Chrome's minimum version.
var firefoxDrops = []string{"key", "side_panel", "minimum_chrome_version"}

// firefoxNoPermissions are permissions Firefox does not offer; it warns about
// each on install.
var firefoxNoPermissions = map[string]bool{"debugger": true, "sidePanel": true}

// firefoxManifest turns extension/manifest.json into the manifest of the
// Firefox package: the keys and permissions above removed, and the
// background given as scripts only (Firefox runs them as an event page;
// the service worker entry is Chrome's).
func firefoxManifest(data []byte) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("extension manifest: %w", err)
	}
	bss, _ := m["browser_specific_settings"].(map[string]any)
	if gecko, _ := bss["gecko"].(map[string]any); gecko["id"] == nil {
		return nil, fmt.Errorf("extension manifest: no browser_specific_settings.gecko.id")
	}
	for _, k := range firefoxDrops {
		delete(m, k)
	}
	if perms, ok := m["permissions"].([]any); ok {
		kept := []any{}
		for _, p := range perms {
			if s, _ := p.(string); !firefoxNoPermissions[s] {
				kept = append(kept, p)
			}
		}
		m["permissions"] = kept
	}
	bg, _ := m["background"].(map[string]any)
	if bg["scripts"] == nil {
		return nil, fmt.Errorf("extension manifest: background has no scripts for Firefox")
	}
	delete(bg, "service_worker")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// packFirefox writes the Firefox package: the extension's files at the root
// of a zip (an .xpi), with Firefox's manifest, without the unit tests, and
// with the host binaries of hostbin under hostbin/ so the options page can
// hand one out ("" leaves them out).
func packFirefox(xpiPath, hostbin string) error {
	manifest, err := os.ReadFile("extension/manifest.json")
	if err != nil {
		return err
	}
	manifest, err = firefoxManifest(manifest)
	if err != nil {
		return err
	}
	a, err := createArchive(xpiPath)
	if err != nil {
		return err
	}
	defer a.discard()
	if err := a.add("manifest.json", manifest, 0o644); err != nil {
		return err
	}
	err = extensionFiles(func(p string) error {
		if p == "extension/manifest.json" {
			return nil
		}
		return a.addFile(p, strings.TrimPrefix(filepath.ToSlash(p), "extension/"), 0o644)
	})
	if err != nil {
		return err
	}
	if hostbin != "" {
		bins, err := os.ReadDir(hostbin)
		if err != nil {
			return err
		}
		for _, b := range bins {
			if b.IsDir() || !strings.HasPrefix(b.Name(), "gnosis-host-") || strings.HasSuffix(b.Name(), ".tmp") {
				continue
			}
			if err := a.addFile(filepath.Join(hostbin, b.Name()), path.Join("hostbin", b.Name()), 0o644); err != nil {
				return err
			}
		}
	}
	return a.commit()
}

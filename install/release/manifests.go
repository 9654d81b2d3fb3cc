package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/gnosis/gnosis/host/register"
)

// Each package's manifest is extension/manifest.json, which serves both
// browsers when the extension is loaded unpacked, with the version stamped
// and what the other browser reads taken out: the stores reject or warn
// about keys meant for another browser.

// chromeDrops are the keys neither Chrome package has a use for: Firefox's
// settings and its sidebar.
var chromeDrops = []string{"browser_specific_settings", "sidebar_action"}

// firefoxDrops are the keys Firefox has no use for: the Chrome public key
// (Firefox names the add-on by browser_specific_settings.gecko.id), the Side
// Panel (Firefox has sidebar_action) and Chrome's minimum version.
var firefoxDrops = []string{"key", "side_panel", "minimum_chrome_version"}

// firefoxNoPermissions are permissions the Firefox package does not ask
// for: those Firefox does not offer (it warns about each on install), and
// those only the browser agent uses (webRequest names a failed model
// request, unlimitedStorage holds its conversations), which the Firefox
// package leaves out.
var firefoxNoPermissions = map[string]bool{"debugger": true, "sidePanel": true, "webRequest": true, "unlimitedStorage": true}

// chromeManifest turns the manifest m into the Chrome package a person
// loads unpacked: the keys above removed, the background given as the
// service worker only (background.scripts is Firefox's entry), and the
// public key kept, so that the browser gives the extension the id every
// gnosis-host trusts (register.ExtensionID) wherever its folder is.
func chromeManifest(m map[string]any) error {
	key, _ := m["key"].(string)
	id, err := extensionID(key)
	if err != nil {
		return fmt.Errorf("extension manifest: key: %w", err)
	}
	if id != register.ExtensionID {
		return fmt.Errorf("extension manifest: key gives the id %s, but the host trusts %s (register.ExtensionID)", id, register.ExtensionID)
	}
	for _, k := range chromeDrops {
		delete(m, k)
	}
	bg, _ := m["background"].(map[string]any)
	if bg["service_worker"] == nil {
		return fmt.Errorf("extension manifest: background has no service_worker for Chrome")
	}
	delete(bg, "scripts")
	return nil
}

// chromeStoreManifest turns the manifest m into the Chrome Web Store
// package's: chromeManifest's, without the public key (the store refuses a
// manifest that has one and names the item itself, with an id of its own).
func chromeStoreManifest(m map[string]any) error {
	if err := chromeManifest(m); err != nil {
		return err
	}
	delete(m, "key")
	return nil
}

// extensionID is the id Chromium gives an extension whose manifest has key
// (the base64 DER public key): the first 16 bytes of its SHA-256, each
// half-byte written as a letter a-p.
func extensionID(key string) (string, error) {
	if key == "" {
		return "", fmt.Errorf("none (it fixes the extension's id)")
	}
	der, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return "", fmt.Errorf("not base64: %w", err)
	}
	sum := sha256.Sum256(der)
	id := make([]byte, 32)
	for i, b := range sum[:16] {
		id[2*i], id[2*i+1] = 'a'+b>>4, 'a'+b&0xf
	}
	return string(id), nil
}

// firefoxManifest turns the manifest m into the Firefox package's: the keys
// and permissions above removed, and the background given as scripts only
// (Firefox runs them as an event page; the service worker is Chrome's).
func firefoxManifest(m map[string]any) error {
	bss, _ := m["browser_specific_settings"].(map[string]any)
	gecko, _ := bss["gecko"].(map[string]any)
	if gecko["id"] == nil {
		return fmt.Errorf("extension manifest: no browser_specific_settings.gecko.id")
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
		return fmt.Errorf("extension manifest: background has no scripts for Firefox")
	}
	delete(bg, "service_worker")
	return nil
}

// unpackedManifest keeps the manifest whole, for the extension folder of the
// host zips that a person loads unpacked in either browser.
func unpackedManifest(map[string]any) error { return nil }

// packageManifest parses the source manifest, stamps version into it and
// applies flavour; it returns the result and the files it reaches, which
// always include ReleaseJS, the release's own word on where it is.
func (t *sourceTree) packageManifest(src []byte, version string, flavour func(map[string]any) error) (manifest []byte, files []string, err error) {
	var m map[string]any
	if err := json.Unmarshal(src, &m); err != nil {
		return nil, nil, fmt.Errorf("extension manifest: %w", err)
	}
	m["version"] = version
	if err := flavour(m); err != nil {
		return nil, nil, err
	}
	files, err = t.reach(append(t.manifestFiles(m), ReleaseJS))
	if err != nil {
		return nil, nil, fmt.Errorf("extension manifest: %w", err)
	}
	keepReached(m, files)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), files, nil
}

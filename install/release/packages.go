package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// extension is the extension's source, read once per run and packed with
// the run's version and download location.
type extension struct {
	tree      *sourceTree
	manifest  []byte // extension/manifest.json as committed
	version   string
	releaseJS []byte // ReleaseJS for the run's download location
}

func readExtension(version, downloadURL string) (*extension, error) {
	tree, err := readSourceTree(extensionDir)
	if err != nil {
		return nil, err
	}
	manifest, err := os.ReadFile(filepath.Join(extensionDir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	return &extension{tree: tree, manifest: manifest, version: version, releaseJS: releaseJS(downloadURL, Targets)}, nil
}

// addTo writes the extension into a, under prefix ("" for the root of a
// browser package), with flavour's manifest and the files it reaches.
func (x *extension) addTo(a *archive, prefix string, flavour func(map[string]any) error) error {
	manifest, files, err := x.tree.packageManifest(x.manifest, x.version, flavour)
	if err != nil {
		return err
	}
	if err := a.add(path.Join(prefix, "manifest.json"), manifest, 0o644); err != nil {
		return err
	}
	licence, err := readLicence()
	if err != nil {
		return err
	}
	notices, err := extensionNotices(x.tree.dir, files)
	if err != nil {
		return err
	}
	if err := a.add(path.Join(prefix, LicenceFile), licence, 0o644); err != nil {
		return err
	}
	if err := a.add(path.Join(prefix, NoticesFile), notices, 0o644); err != nil {
		return err
	}
	for _, f := range files {
		if f == ReleaseJS {
			err = a.add(path.Join(prefix, f), x.releaseJS, 0o644)
		} else {
			err = a.addFile(filepath.Join(x.tree.dir, filepath.FromSlash(f)), path.Join(prefix, f), 0o644)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// notices is the notices text of the extension's files in flavour's package.
func (x *extension) notices(flavour func(map[string]any) error) ([]byte, error) {
	_, files, err := x.tree.packageManifest(x.manifest, x.version, flavour)
	if err != nil {
		return nil, err
	}
	return extensionNotices(x.tree.dir, files)
}

// pack writes a browser package: the extension at the root of a zip (an
// .xpi for Firefox), to load unpacked or to upload to a store.
func (x *extension) pack(zipPath string, flavour func(map[string]any) error) error {
	a, err := createArchive(zipPath)
	if err != nil {
		return err
	}
	defer a.discard()
	if err := x.addTo(a, "", flavour); err != nil {
		return err
	}
	return a.commit()
}

// packHostZip writes a host zip: under the folder name/, the binary, the
// install scripts for its system, the manifest templates, the docs and the
// extension to load unpacked (both browsers' entries, the committed key).
func packHostZip(zipPath, name, goos, bin string, x *extension) error {
	a, err := createArchive(zipPath)
	if err != nil {
		return err
	}
	defer a.discard()
	files := [][2]string{{bin, filepath.Base(bin)}, {"README.md", "README.md"}, {"docs/install.md", "docs/install.md"},
		{"docs/protocol.md", "docs/protocol.md"}, {"docs/firefox.md", "docs/firefox.md"},
		{"manifests/com.gnosis.host.json", "manifests/com.gnosis.host.json"},
		{"manifests/com.gnosis.host.firefox.json", "manifests/com.gnosis.host.firefox.json"}}
	if goos == "windows" {
		files = append(files, [2]string{"install/windows/install.cmd", "install.cmd"},
			[2]string{"install/windows/uninstall.cmd", "uninstall.cmd"}, [2]string{"install/windows/install.ps1", "install.ps1"})
	} else {
		files = append(files, [2]string{"install/install.sh", "install.sh"})
	}
	for _, p := range files {
		mode := fs.FileMode(0o644)
		if p[0] == bin || strings.HasSuffix(p[1], ".sh") {
			mode = 0o755
		}
		if err := a.addFile(p[0], path.Join(name, p[1]), mode); err != nil {
			return fmt.Errorf("pack %s: %w", p[0], err)
		}
	}
	if err := x.addTo(a, path.Join(name, extensionDir), unpackedManifest); err != nil {
		return err
	}
	extNotices, err := x.notices(unpackedManifest)
	if err != nil {
		return err
	}
	lg, err := hostLegal(bin, extNotices)
	if err != nil {
		return err
	}
	if err := a.add(path.Join(name, LicenceFile), lg.licence, 0o644); err != nil {
		return err
	}
	if err := a.add(path.Join(name, NoticesFile), lg.notices, 0o644); err != nil {
		return err
	}
	return a.commit()
}

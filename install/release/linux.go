package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"

	"github.com/gnosis/gnosis/host/register"
)

// The Linux packages: a .deb and an .rpm built by nfpm, which install the
// host for every user and register it with every browser's system-wide
// manifest folder (register.Browsers' LinuxSystem: Chrome's, which Brave
// also reads, Chromium's, Edge's, Vivaldi's, Firefox's). The manifests are
// plain files of the package, not written by maintainer scripts, so the
// package manager owns them: removing the package removes them, and the
// folders it created when they are left empty.
//
// nfpm runs as a Go tool from its own module file (nfpm.mod beside this
// file), so its dependencies never enter the host's build: `go tool
// -modfile=install/release/nfpm.mod nfpm`, built once from the module proxy
// and then taken from the build cache.

// LinuxCommand links register.PackageBinary onto every user's PATH.
const LinuxCommand = "/usr/bin/gnosis-host"

// nfpmModFile is nfpm's module file, relative to the repository root.
const nfpmModFile = "install/release/nfpm.mod"

// standardDirs are folders that belong to the system, never to the package.
var standardDirs = map[string]bool{"/": true, "/etc": true, "/etc/opt": true, "/usr": true, "/usr/lib": true, "/usr/bin": true, "/opt": true,
	"/usr/share": true, "/usr/share/doc": true}

// DocDir is the package's documentation folder: its licence, its Debian
// copyright file and the third-party notices.
const DocDir = "/usr/share/doc/" + register.PackageName

// debianCopyright is the .deb's copyright file (Debian's machine-readable
// format), ahead of the licence's full text.
const debianCopyright = `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: Gnosis
Source: https://github.com/gnosis/gnosis
Comment: gnosis-host is built from Go modules under their own licences; they are
 quoted in full in ` + DocDir + "/" + NoticesFile + `.

Files: *
Copyright: Gnosis contributors
License: Apache-2.0
 The full text of the Apache License 2.0 follows, and is in ` + DocDir + `/LICENSE.
`

// nfpmContent is one entry of nfpm's contents.
type nfpmContent struct {
	Src      string         `json:"src,omitempty"`
	Dst      string         `json:"dst"`
	Type     string         `json:"type,omitempty"`
	FileInfo map[string]any `json:"file_info,omitempty"`
}

// linuxManifests are the system-wide manifest files, each once, with the
// family whose manifest it holds, in table order.
func linuxManifests() ([]string, map[string]register.Family, error) {
	e := register.Env{GOOS: "linux"}
	var paths []string
	family := map[string]register.Family{}
	for _, b := range register.Browsers {
		if !b.Supported("linux") || b.LinuxSystem == "" {
			continue
		}
		p, err := e.ManifestPath(b, register.System)
		if err != nil {
			return nil, nil, err
		}
		if f, ok := family[p]; ok {
			if f.ID != b.Family.ID {
				return nil, nil, fmt.Errorf("%s is read by %s and %s browsers", p, f.ID, b.Family.ID)
			}
			continue
		}
		family[p] = b.Family
		paths = append(paths, p)
	}
	return paths, family, nil
}

// nfpmConfig is the nfpm configuration (JSON, which nfpm reads as YAML) for
// the host binary bin built for goarch of package kind (deb, rpm), with the
// manifests, the licence and the notices (lg) written into dir.
func nfpmConfig(kind, version, goarch, bin, dir string, lg legal) ([]byte, error) {
	paths, family, err := linuxManifests()
	if err != nil {
		return nil, err
	}
	contents := []nfpmContent{
		{Src: bin, Dst: register.PackageBinary, FileInfo: map[string]any{"mode": 0o755}},
		{Src: register.PackageBinary, Dst: LinuxCommand, Type: "symlink"},
	}
	owned := map[string]bool{}
	own := func(file string) {
		for d := path.Dir(file); !standardDirs[d]; d = path.Dir(d) {
			owned[d] = true
		}
	}
	own(register.PackageBinary)
	for i, p := range paths {
		m, err := register.NewManifest(family[p], register.PackageBinary)
		if err != nil {
			return nil, err
		}
		src := filepath.Join(dir, fmt.Sprintf("manifest-%d.json", i))
		if err := os.WriteFile(src, m.Encode(), 0o644); err != nil {
			return nil, err
		}
		contents = append(contents, nfpmContent{Src: src, Dst: p, FileInfo: map[string]any{"mode": 0o644}})
		own(p)
	}
	docs := map[string][]byte{"LICENSE": lg.licence, NoticesFile: lg.notices}
	if kind == "deb" {
		docs["copyright"] = append([]byte(debianCopyright+"\n"), lg.licence...)
	}
	for _, name := range []string{"LICENSE", NoticesFile, "copyright"} {
		if docs[name] == nil {
			continue
		}
		src := filepath.Join(dir, "doc-"+name)
		if err := os.WriteFile(src, docs[name], 0o644); err != nil {
			return nil, err
		}
		contents = append(contents, nfpmContent{Src: src, Dst: DocDir + "/" + name, FileInfo: map[string]any{"mode": 0o644}})
		own(DocDir + "/" + name)
	}
	dirs := make([]string, 0, len(owned))
	for d := range owned {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		contents = append(contents, nfpmContent{Dst: d, Type: "dir", FileInfo: map[string]any{"mode": 0o755}})
	}
	return json.MarshalIndent(map[string]any{
		"name":        register.PackageName,
		"arch":        goarch,
		"platform":    "linux",
		"version":     version,
		"release":     "1",
		"section":     "utils",
		"priority":    "optional",
		"maintainer":  "Gnosis <gnosis@gnosis.dev>",
		"vendor":      "Gnosis",
		"homepage":    "https://github.com/gnosis/gnosis",
		"license":     Licence,
		"description": "Gnosis native-messaging host\nLets the Gnosis browser extension reach MCP servers (Munim, or any MCP stdio\nserver) through native messaging, for every user of the machine: registered with\nChrome, Chromium, Edge, Brave, Vivaldi and Firefox. Check it with: gnosis-host doctor",
		"contents":    contents,
	}, "", "  ")
}

// buildLinuxPackage builds the .deb or .rpm (kind) of bin at pkgPath,
// working in dir, with the licence and notices lg.
func buildLinuxPackage(pkgPath, kind, version, goarch, bin, dir string, lg legal) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cfg, err := nfpmConfig(kind, version, goarch, bin, dir, lg)
	if err != nil {
		return err
	}
	cfgPath := filepath.Join(dir, "nfpm.yaml")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		return err
	}
	tmp := pkgPath + ".tmp"
	defer os.Remove(tmp)
	cmd := exec.Command("go", "tool", "-modfile="+nfpmModFile, "nfpm", "package", "--config", cfgPath, "--packager", kind, "--target", tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("nfpm: %w\n%s", err, out)
	}
	return os.Rename(tmp, pkgPath)
}

package main

// The licence: Gnosis is Apache-2.0 (LICENSE at the repository root), and
// every package carries LICENSE beside THIRD_PARTY_NOTICES.txt, the
// licences of what it bundles. The notices are generated at build time,
// never kept by hand: for a package with the host, from the binary itself
// (debug/buildinfo lists every module compiled in) and the licence files of
// each module's folder in the module cache, plus the Go standard library's
// licence; for the extension, from the files the package ships (any that
// declares a licence or a copyright of its own is third-party and quoted).

import (
	"bytes"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// Licence is the project's licence, as an SPDX identifier (the .rpm's
// License tag, package.json's "license").
const Licence = "Apache-2.0"

// LicenceFile is the licence's text, at the repository root and in every
// package.
const LicenceFile = "LICENSE"

// NoticesFile holds the licences of the third-party code a package bundles.
const NoticesFile = "THIRD_PARTY_NOTICES.txt"

// licenceName matches the files in a module's folder that hold its licence
// terms.
var licenceName = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice|patents|unlicense)([.-].*)?$`)

// moduleNotices is the notice of one module: its path, version and licence
// files.
type moduleNotice struct {
	Path, Version string
	Files         map[string][]byte // file name -> text
}

// hostModules reads the modules compiled into the binary bin (its own main
// module left out), each with its replacement if it has one.
func hostModules(bin string) ([]moduleNotice, error) {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return nil, fmt.Errorf("reading the modules of %s: %w", bin, err)
	}
	var out []moduleNotice
	for _, d := range info.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		out = append(out, moduleNotice{Path: d.Path, Version: d.Version})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// goEnv is `go env name`.
func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// escapeModulePath is a module path as the module cache spells its folder:
// each upper-case letter as '!' and its lower case.
func escapeModulePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// readLicences fills each module's licence files from its folder under
// modcache; a module with none is an error, since its terms would be
// missing from the notices.
func readLicences(mods []moduleNotice, modcache string) error {
	for i := range mods {
		m := &mods[i]
		dir := filepath.Join(modcache, filepath.FromSlash(escapeModulePath(m.Path))+"@"+m.Version)
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("the licence of %s %s: %w (run go mod download)", m.Path, m.Version, err)
		}
		m.Files = map[string][]byte{}
		for _, e := range entries {
			if e.Type().IsRegular() && licenceName.MatchString(e.Name()) {
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					return err
				}
				m.Files[e.Name()] = b
			}
		}
		if len(m.Files) == 0 {
			return fmt.Errorf("%s %s has no licence file in %s", m.Path, m.Version, dir)
		}
	}
	return nil
}

// hostNotices is the notices text of a package holding the host binary bin
// (and, in a host zip, the extension: extension's part, "" when none).
func hostNotices(bin, extension string) ([]byte, error) {
	mods, err := hostModules(bin)
	if err != nil {
		return nil, err
	}
	modcache, err := goEnv("GOMODCACHE")
	if err != nil {
		return nil, err
	}
	if err := readLicences(mods, modcache); err != nil {
		return nil, err
	}
	goroot, err := goEnv("GOROOT")
	if err != nil {
		return nil, err
	}
	goLicence, err := os.ReadFile(filepath.Join(goroot, "LICENSE"))
	if err != nil {
		return nil, fmt.Errorf("the Go standard library's licence: %w", err)
	}
	info, _ := buildinfo.ReadFile(bin)
	var b bytes.Buffer
	fmt.Fprintf(&b, "Third-party notices\n\nGnosis is licensed under the Apache License 2.0 (%s). gnosis-host is built with %s and\n"+
		"contains the Go standard library and the modules below, each under its own licence, quoted in full.\n"+
		"This file is generated from the binary's own module list when the release is built.\n", LicenceFile, info.GoVersion)
	section(&b, "The Go standard library ("+info.GoVersion+")", map[string][]byte{"LICENSE": goLicence})
	for _, m := range mods {
		section(&b, m.Path+" "+m.Version, m.Files)
	}
	if extension != "" {
		b.WriteString("\n" + rule + "\n" + extension)
	}
	return b.Bytes(), nil
}

const rule = "================================================================================"

// section writes one component's heading and its licence files, in name order.
func section(b *bytes.Buffer, title string, files map[string][]byte) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(b, "\n%s\n%s\n", rule, title)
	for _, n := range names {
		fmt.Fprintf(b, "\n--- %s ---\n\n%s\n", n, bytes.TrimSpace(files[n]))
	}
}

// thirdPartyMark is text by which a file declares licence terms of its own
// (a vendored library's header).
var thirdPartyMark = regexp.MustCompile(`(?i)@license|SPDX-License-Identifier|\bcopyright\s+(?:\(c\)|©|\d{4})`)

// extensionNotices is the notices text for the extension's files (paths
// relative to dir): each file that declares its own licence or copyright is
// quoted with its first lines; with none, the text says the extension is
// Gnosis's own code only.
func extensionNotices(dir string, files []string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("The extension\n\n")
	var found []string
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		if loc := thirdPartyMark.FindIndex(data); loc != nil && !bytes.Contains(data[max(0, loc[0]-200):min(len(data), loc[1]+200)], []byte("Gnosis")) {
			found = append(found, f)
			head := data[:min(len(data), 1500)]
			fmt.Fprintf(&b, "%s\n%s (its own licence, as its header states)\n\n%s\n\n", rule, f, bytes.TrimSpace(head))
		}
	}
	if len(found) == 0 {
		fmt.Fprintf(&b, "The extension's %d files are Gnosis's own code, under the Apache License 2.0 (%s): it bundles no\n"+
			"third-party code (no file it ships declares a licence or copyright of its own; checked when the release is built).\n", len(files), LicenceFile)
	}
	return b.Bytes(), nil
}

// legal is what every package carries beside its contents: the licence and
// the notices of what it bundles.
type legal struct{ licence, notices []byte }

// readLicence is the project's licence text (LICENSE, in the working
// folder: the repository root, as make dist runs).
func readLicence() ([]byte, error) {
	b, err := os.ReadFile(LicenceFile)
	if err != nil {
		return nil, fmt.Errorf("the licence: %w", err)
	}
	return b, nil
}

// hostLegal is the licence and notices of a package holding the host binary
// bin, and the extension when extension (its notices) is not nil.
func hostLegal(bin string, extension []byte) (legal, error) {
	licence, err := readLicence()
	if err != nil {
		return legal{}, err
	}
	notices, err := hostNotices(bin, string(extension))
	if err != nil {
		return legal{}, err
	}
	return legal{licence: licence, notices: notices}, nil
}

package main

import (
	"bytes"
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/host/register"
	"github.com/gnosis/gnosis/internal/prereq"
)

// missingModules lists the modules compiled into bin that notices does not
// quote (by path and version, with a licence heading), and whether the Go
// standard library's licence is there.
func missingModules(t *testing.T, bin string, notices []byte) []string {
	t.Helper()
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatalf("reading the modules of %s: %v", bin, err)
	}
	if len(info.Deps) == 0 {
		t.Fatalf("%s lists no module: the check would prove nothing", bin)
	}
	var missing []string
	for _, d := range info.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		if !bytes.Contains(notices, []byte("\n"+d.Path+" "+d.Version+"\n\n--- ")) {
			missing = append(missing, d.Path+" "+d.Version)
		}
	}
	if !bytes.Contains(notices, []byte("The Go standard library ("+info.GoVersion+")")) {
		missing = append(missing, "the Go standard library")
	}
	return missing
}

// The notices of the host quote, for every module the binary holds, its
// licence files from the module cache, and the Go standard library's.
func TestNoticesCoverEveryModuleOfTheHost(t *testing.T) {
	t.Chdir("../..")
	bin := filepath.Join(t.TempDir(), "gnosis-host")
	if err := buildHost("linux", runtime.GOARCH, testVersion, bin); err != nil {
		t.Fatal(err)
	}
	lg, err := hostLegal(bin, []byte("The extension\n\nthe extension's part\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m := missingModules(t, bin, lg.notices); len(m) > 0 {
		t.Errorf("the notices lack %v:\n%s", m, lg.notices)
	}
	for _, want := range []string{"Apache License", "Permission is hereby granted", "the extension's part"} { // Apache, MIT (zerolog), the extension
		if !bytes.Contains(lg.notices, []byte(want)) {
			t.Errorf("the notices lack %q", want)
		}
	}
	root, _ := os.ReadFile("LICENSE")
	if !bytes.Equal(lg.licence, root) || !bytes.Contains(root, []byte("Apache License\n                           Version 2.0, January 2004")) {
		t.Errorf("the licence is not the repository's Apache-2.0 LICENSE")
	}
}

// A file of the extension that carries a licence header of its own is
// third-party: the notices quote it; the extension's own files are not.
func TestExtensionNoticesQuoteThirdPartyFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "own.js"), []byte("// The bridge's own code.\nexport const x = 1;\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.js"), []byte("/*! tinylib v1.0 | (c) 2020 Ann | @license MIT */\nexport const y = 2;\n"), 0o644)
	own, err := extensionNotices(dir, []string{"own.js"})
	if err != nil || !strings.Contains(string(own), "bundles no\nthird-party code") {
		t.Errorf("own code only: %v\n%s", err, own)
	}
	both, err := extensionNotices(dir, []string{"lib.js", "own.js"})
	if err != nil || !strings.Contains(string(both), "lib.js (its own licence") || !strings.Contains(string(both), "@license MIT") || strings.Contains(string(both), "own.js") {
		t.Errorf("a vendored file: %v\n%s", err, both)
	}
}

// checkEveryPackageCarriesTheLicence opens every package in out and checks
// it carries LICENSE and the notices, that a package with the host quotes
// every module of the binary it holds, and the licence in the package's
// metadata where the format has a field for it.
func checkEveryPackageCarriesTheLicence(t *testing.T, out string) {
	t.Helper()
	licence, err := os.ReadFile(LicenceFile)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(out)
	checked := 0
	for _, e := range entries {
		name := e.Name()
		pkg := filepath.Join(out, name)
		dir := t.TempDir()
		var lic, notices, bin string // paths of what the package holds, once unpacked into dir
		switch {
		case name == Checksums:
			continue
		case strings.HasSuffix(name, ".deb"):
			if o, err := exec.Command("dpkg-deb", "-x", pkg, dir).CombinedOutput(); err != nil {
				t.Fatalf("dpkg-deb -x %s: %v\n%s", name, err, o)
			}
			lic, notices, bin = filepath.Join(dir, DocDir, "LICENSE"), filepath.Join(dir, DocDir, NoticesFile), filepath.Join(dir, register.PackageBinary)
			if c, _ := os.ReadFile(filepath.Join(dir, DocDir, "copyright")); !bytes.Contains(c, []byte("License: Apache-2.0")) || !bytes.Contains(c, licence) {
				t.Errorf("%s: the copyright file does not state Apache-2.0 with its text:\n%s", name, c)
			}
		case strings.HasSuffix(name, ".rpm"):
			rpm := prereq.Command(t, prereq.Setup+" (apt-get install rpm)", "rpm")
			if o, _ := exec.Command(rpm, "-qp", "--qf", "%{LICENSE}", pkg).Output(); string(o) != Licence {
				t.Errorf("%s: License tag %q, want %s", name, o, Licence)
			}
			files, _ := exec.Command(rpm, "-qlp", pkg).Output()
			for _, f := range []string{DocDir + "/LICENSE", DocDir + "/" + NoticesFile} {
				if !strings.Contains(string(files), f+"\n") {
					t.Errorf("%s does not install %s:\n%s", name, f, files)
				}
			}
			checked++
			continue // the same files as the .deb's, built from the same binary
		case strings.HasSuffix(name, ".msi"):
			if o, err := exec.Command("msiextract", "-C", dir, pkg).CombinedOutput(); err != nil {
				t.Fatalf("msiextract %s: %v\n%s", name, err, o)
			}
			filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
				switch {
				case err != nil:
				case info.Name() == "LICENSE.txt":
					lic = p
				case info.Name() == NoticesFile:
					notices = p
				case info.Name() == "gnosis-host.exe":
					bin = p
				}
				return nil
			})
		case strings.HasSuffix(name, ".zip") || strings.HasSuffix(name, ".xpi"):
			prefix := ""
			if z := zipEntries(t, pkg); z[LicenceFile] == 0 {
				prefix = strings.TrimSuffix(name, ".zip") + "/" // a host zip
				b := prefix + binaryName(map[bool]string{true: "windows"}[strings.Contains(name, "windows")])
				os.WriteFile(filepath.Join(dir, "bin"), zipFile(t, pkg, b), 0o755)
				bin = filepath.Join(dir, "bin")
				if _, ok := z[prefix+"extension/"+LicenceFile]; !ok {
					t.Errorf("%s: the unpacked extension lacks its %s", name, LicenceFile)
				}
			}
			os.WriteFile(filepath.Join(dir, LicenceFile), zipFile(t, pkg, prefix+LicenceFile), 0o644)
			os.WriteFile(filepath.Join(dir, NoticesFile), zipFile(t, pkg, prefix+NoticesFile), 0o644)
			lic, notices = filepath.Join(dir, LicenceFile), filepath.Join(dir, NoticesFile)
		default:
			t.Errorf("%s: a package this check does not know", name)
			continue
		}
		checked++
		if got, _ := os.ReadFile(lic); !bytes.Equal(got, licence) {
			t.Errorf("%s does not carry LICENSE (%s)", name, lic)
		}
		text, err := os.ReadFile(notices)
		if err != nil || !bytes.HasPrefix(text, []byte("Third-party notices")) && !bytes.HasPrefix(text, []byte("The extension")) {
			t.Errorf("%s does not carry %s: %v", name, NoticesFile, err)
			continue
		}
		if bin != "" {
			if m := missingModules(t, bin, text); len(m) > 0 {
				t.Errorf("%s: the notices lack %v", name, m)
			}
		}
	}
	if checked == 0 {
		t.Error("no package was checked")
	}
}

// After make dist, every package in the repository's dist/ carries the
// licence and notices that cover its binary (skipped when there is no
// dist/: TestDistWritesEveryPackageSignedAndChecksummed checks the same
// on a release it builds).
func TestTheDistFolderCarriesTheLicence(t *testing.T) {
	t.Chdir("../..")
	if _, err := os.Stat(filepath.Join("dist", Checksums)); err != nil {
		t.Skip("no dist/ here: run make dist first")
	}
	checkEveryPackageCarriesTheLicence(t, "dist")
}

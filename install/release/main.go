// Command release builds Gnosis's release: gnosis-host for every platform,
// packed with the installer scripts, the extension and the docs into
// dist/gnosis-<os>-<arch>.zip, and the same binaries copied into
// extension/hostbin/gnosis-host-<goos>-<goarch>[.exe], where the extension's
// options page hands the right one to the user (chrome.downloads). The
// extension is also packed for Firefox as dist/gnosis-firefox.xpi, with the
// manifest adjusted for it (firefox.go).
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
//	go run ./install/release [-version V] [-out dist] [-hostbin extension/hostbin] [-targets windows/amd64,...]
package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// Targets are the platforms a release covers.
var Targets = []string{"windows/amd64", "windows/arm64", "darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64"}

func main() {
	version := flag.String("version", "dev", "version stamped into the binaries (main.version)")
	out := flag.String("out", "dist", "folder for the release zips")
	hostbin := flag.String("hostbin", "extension/hostbin", "folder the extension serves the binaries from (empty: skip)")
	targets := flag.String("targets", strings.Join(Targets, ","), "comma-separated GOOS/GOARCH list")
	flag.Parse()
	if err := run(*version, *out, *hostbin, strings.Split(*targets, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(version, out, hostbin string, targets []string) error {
	work, err := os.MkdirTemp("", "gnosis-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	sign, err := signer()
	if err != nil {
		return err
	}
	for _, t := range targets {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(t), "/")
		if !ok {
			return fmt.Errorf("target %q: want GOOS/GOARCH", t)
		}
		exe := ""
		if goos == "windows" {
			exe = ".exe"
		}
		bin := filepath.Join(work, goos+"-"+goarch, "gnosis-host"+exe)
		if err := buildHost(goos, goarch, version, bin); err != nil {
			return err
		}
		if goos == "windows" && sign != nil {
			if err := sign(bin); err != nil {
				return fmt.Errorf("sign %s/%s: %w", goos, goarch, err)
			}
			fmt.Printf("signed   %s/%s\n", goos, goarch)
		}
		if hostbin != "" {
			dst := filepath.Join(hostbin, "gnosis-host-"+goos+"-"+goarch+exe)
			if err := copyFile(bin, dst, 0o755); err != nil {
				return err
			}
		}
		name := "gnosis-" + goos + "-" + goarch
		zipPath := filepath.Join(out, name+".zip")
		if err := pack(zipPath, name, goos, bin); err != nil {
			return fmt.Errorf("pack %s: %w", zipPath, err)
		}
		fmt.Printf("packed   %s\n", zipPath)
	}
	xpi := filepath.Join(out, FirefoxPackage)
	if err := packFirefox(xpi, hostbin); err != nil {
		return fmt.Errorf("pack %s: %w", xpi, err)
	}
	fmt.Printf("packed   %s\n", xpi)
	return nil
}

// buildHost builds gnosis-host for one target into bin. The tests replace it
// with a cache so that each target is compiled once per test binary.
var buildHost = build

func build(goos, goarch, version, bin string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+version, "-o", bin, "./cmd/gnosis-host")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build %s/%s: %w", goos, goarch, err)
	}
	return nil
}

// signer returns a function signing a Windows binary in place, or nil when
// no certificate is configured.
func signer() (func(string) error, error) {
	var args []string
	switch {
	case os.Getenv("SIGN_PFX") != "":
		args = []string{"-pkcs12", os.Getenv("SIGN_PFX")}
		if p := os.Getenv("SIGN_PASS"); p != "" {
			args = append(args, "-pass", p)
		}
	case os.Getenv("SIGN_CERT") != "" && os.Getenv("SIGN_KEY") != "":
		args = []string{"-certs", os.Getenv("SIGN_CERT"), "-key", os.Getenv("SIGN_KEY")}
		if p := os.Getenv("SIGN_PASS"); p != "" {
			args = append(args, "-pass", p)
		}
	case os.Getenv("SIGN_CERT") != "" || os.Getenv("SIGN_KEY") != "":
		return nil, fmt.Errorf("signing needs both SIGN_CERT and SIGN_KEY (or SIGN_PFX)")
	default:
		return nil, nil
	}
	tool, err := exec.LookPath("osslsigncode")
	if err != nil {
		return nil, fmt.Errorf("a signing certificate is set but osslsigncode is not installed: %w", err)
	}
	args = append(args, "-h", "sha256", "-n", "Gnosis host", "-i", "https://github.com/gnosis/gnosis")
	if ts := os.Getenv("SIGN_TIMESTAMP"); ts != "" {
		args = append(args, "-ts", ts)
	}
	return func(bin string) error {
		signed := bin + ".signed"
		cmd := exec.Command(tool, append(append([]string{"sign"}, args...), "-in", bin, "-out", signed)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("osslsigncode: %w\n%s", err, out)
		}
		return os.Rename(signed, bin)
	}, nil
}

// pack writes a release zip: everything under the folder name/, the binary
// executable, the scripts for its system, the extension (without the
// binaries it serves and its tests), the manifest template and the docs.
func pack(zipPath, name, goos, bin string) error {
	a, err := createArchive(zipPath)
	if err != nil {
		return err
	}
	defer a.discard()
	add := func(src, dst string, mode fs.FileMode) error { return a.addFile(src, path.Join(name, dst), mode) }
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
		if err := add(p[0], p[1], mode); err != nil {
			return err
		}
	}
	if err := extensionFiles(func(p string) error { return add(p, filepath.ToSlash(p), 0o644) }); err != nil {
		return err
	}
	return a.commit()
}

func copyFile(src, dst string, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

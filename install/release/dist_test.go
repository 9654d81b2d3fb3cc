package main

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gnosis/gnosis/internal/prereq"
	"github.com/google/go-cmp/cmp"
)

// testVersion is stamped into every test build, so the tests share them.
const testVersion = "v-test-1"

// buildCache builds each target once per test binary and hands out copies
// (a copy, because signing rewrites the binary in place).
type buildCache struct {
	dir    string
	mu     sync.Mutex
	builds map[string]*cachedBuild
}

type cachedBuild struct {
	once sync.Once
	path string
	err  error
}

func (c *buildCache) build(goos, goarch, version, bin string) error {
	key := goos + "-" + goarch + "-" + version
	c.mu.Lock()
	b, ok := c.builds[key]
	if !ok {
		b = &cachedBuild{path: filepath.Join(c.dir, key, filepath.Base(bin))}
		c.builds[key] = b
	}
	c.mu.Unlock()
	b.once.Do(func() { b.err = build(goos, goarch, version, b.path) })
	if b.err != nil {
		return b.err
	}
	return copyFile(b.path, bin, 0o755)
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gnosis-release-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildHost = (&buildCache{dir: dir, builds: map[string]*cachedBuild{}}).build
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// zipEntries lists a zip's files with their modes.
func zipEntries(t *testing.T, name string) map[string]os.FileMode {
	t.Helper()
	zr, err := zip.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	m := map[string]os.FileMode{}
	for _, f := range zr.File {
		m[f.Name] = f.Mode().Perm()
	}
	return m
}

func extract(t *testing.T, zipName, entry, dst string) {
	t.Helper()
	zr, err := zip.OpenReader(zipName)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != entry {
			continue
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, f.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("%s has no %s", zipName, entry)
}

// TestDistPacksSignsAndServesBinaries builds two targets the way make dist
// does, with a throwaway self-signed certificate, and checks the zips, the
// extension's hostbin copies and the Windows signature.
func TestDistPacksSignsAndServesBinaries(t *testing.T) {
	osslsigncode := prereq.Command(t, prereq.Setup, "osslsigncode")
	openssl := prereq.Command(t, prereq.Setup, "openssl")
	tmp := t.TempDir()
	cert, key := filepath.Join(tmp, "cert.pem"), filepath.Join(tmp, "key.pem")
	if out, err := exec.Command(openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
		"-subj", "/CN=Gnosis Throwaway Test Signing", "-keyout", key, "-out", cert).CombinedOutput(); err != nil {
		t.Fatalf("openssl: %v\n%s", err, out)
	}
	t.Setenv("SIGN_CERT", cert)
	t.Setenv("SIGN_KEY", key)
	out, hostbin := filepath.Join(tmp, "dist"), filepath.Join(tmp, "hostbin")
	t.Chdir("../..")
	if err := run(testVersion, out, hostbin, []string{"windows/amd64", "linux/amd64"}); err != nil {
		t.Fatal(err)
	}

	// The extension serves exactly these names (extension/bridge/core/platform.js).
	bins, _ := os.ReadDir(hostbin)
	var names []string
	for _, b := range bins {
		names = append(names, b.Name())
	}
	if d := cmp.Diff([]string{"gnosis-host-linux-amd64", "gnosis-host-windows-amd64.exe"}, names); d != "" {
		t.Errorf("hostbin (-want +got):\n%s", d)
	}

	win := zipEntries(t, filepath.Join(out, "gnosis-windows-amd64.zip"))
	for name, mode := range map[string]os.FileMode{
		"gnosis-windows-amd64/gnosis-host.exe": 0o755, "gnosis-windows-amd64/install.cmd": 0o644,
		"gnosis-windows-amd64/uninstall.cmd": 0o644, "gnosis-windows-amd64/install.ps1": 0o644,
		"gnosis-windows-amd64/README.md": 0o644, "gnosis-windows-amd64/docs/install.md": 0o644,
		"gnosis-windows-amd64/manifests/com.gnosis.host.json": 0o644,
		"gnosis-windows-amd64/extension/manifest.json":        0o644,
		"gnosis-windows-amd64/extension/background.js":        0o644,
	} {
		if got, ok := win[name]; !ok || got != mode {
			t.Errorf("windows zip: %s mode %v present %v, want %v", name, got, ok, mode)
		}
	}
	linux := zipEntries(t, filepath.Join(out, "gnosis-linux-amd64.zip"))
	for name, mode := range map[string]os.FileMode{"gnosis-linux-amd64/gnosis-host": 0o755, "gnosis-linux-amd64/install.sh": 0o755} {
		if got, ok := linux[name]; !ok || got != mode {
			t.Errorf("linux zip: %s mode %v present %v, want %v", name, got, ok, mode)
		}
	}
	for _, z := range []map[string]os.FileMode{win, linux} {
		var bad []string
		for name := range z {
			if strings.Contains(name, "/extension/hostbin/") || strings.Contains(name, "/extension/test/") {
				bad = append(bad, name)
			}
		}
		sort.Strings(bad)
		if len(bad) > 0 {
			t.Errorf("zip holds files it should not: %v", bad)
		}
	}
	// The Firefox package carries the binaries the options page hands out.
	xpi := zipEntries(t, filepath.Join(out, FirefoxPackage))
	for _, name := range []string{"manifest.json", "hostbin/gnosis-host-linux-amd64", "hostbin/gnosis-host-windows-amd64.exe"} {
		if _, ok := xpi[name]; !ok {
			t.Errorf("%s lacks %s", FirefoxPackage, name)
		}
	}
	if _, ok := win["gnosis-windows-amd64/manifests/com.gnosis.host.firefox.json"]; !ok {
		t.Error("windows zip lacks the Firefox manifest template")
	}
	if _, ok := linux["gnosis-linux-amd64/install.cmd"]; ok {
		t.Error("linux zip holds the Windows scripts")
	}

	// The Linux binary from the zip runs and carries the version.
	host := filepath.Join(tmp, "gnosis-host")
	extract(t, filepath.Join(out, "gnosis-linux-amd64.zip"), "gnosis-linux-amd64/gnosis-host", host)
	if v, err := exec.Command(host, "version").Output(); err != nil || !strings.Contains(string(v), testVersion) {
		t.Errorf("gnosis-host version: %q %v", v, err)
	}

	// The signature: present, digest intact, signer is our certificate. The
	// chain is self-signed, so plain verify rejects it as untrusted; trusting
	// the throwaway certificate as the CA, verify succeeds.
	exe := filepath.Join(hostbin, "gnosis-host-windows-amd64.exe")
	plain, err := exec.Command(osslsigncode, "verify", "-in", exe).CombinedOutput()
	if err == nil || !strings.Contains(string(plain), "self-signed certificate") {
		t.Errorf("verify without trusting the test certificate: err %v, want a self-signed chain failure:\n%s", err, plain)
	}
	if !strings.Contains(string(plain), "Subject: /CN=Gnosis Throwaway Test Signing") {
		t.Errorf("signer is not the test certificate:\n%s", plain)
	}
	digests := regexp.MustCompile(`(?m)^(Current|Calculated) message digest\s*:\s*([0-9A-F]+)`).FindAllStringSubmatch(string(plain), -1)
	if len(digests) != 2 || digests[0][2] != digests[1][2] {
		t.Errorf("message digests do not match: %v", digests)
	}
	trusted, err := exec.Command(osslsigncode, "verify", "-CAfile", cert, "-in", exe).CombinedOutput()
	if err != nil || !strings.Contains(string(trusted), "Signature verification: ok") {
		t.Errorf("verify trusting the test certificate: %v\n%s", err, trusted)
	}
	// The copy in the zip is the signed one.
	zipped := filepath.Join(tmp, "zipped.exe")
	extract(t, filepath.Join(out, "gnosis-windows-amd64.zip"), "gnosis-windows-amd64/gnosis-host.exe", zipped)
	if a, b := mustRead(t, zipped), mustRead(t, exe); string(a) != string(b) {
		t.Error("the zip's gnosis-host.exe differs from the signed hostbin copy")
	}
}

// Without a certificate the Windows binary is left unsigned, and a
// half-given certificate is an error rather than a silent unsigned build.
func TestDistSigningConfiguration(t *testing.T) {
	osslsigncode := prereq.Command(t, prereq.Setup, "osslsigncode")
	tmp := t.TempDir()
	t.Setenv("SIGN_CERT", "")
	t.Setenv("SIGN_KEY", "")
	t.Setenv("SIGN_PFX", "")
	t.Chdir("../..")
	if err := run(testVersion, filepath.Join(tmp, "dist"), filepath.Join(tmp, "hostbin"), []string{"windows/amd64"}); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(osslsigncode, "verify", "-in", filepath.Join(tmp, "hostbin", "gnosis-host-windows-amd64.exe")).CombinedOutput()
	if !strings.Contains(string(out), "No signature found") {
		t.Errorf("unsigned build: verify says\n%s", out)
	}
	t.Setenv("SIGN_CERT", filepath.Join(tmp, "cert.pem"))
	if err := run(testVersion, filepath.Join(tmp, "dist"), "", []string{"windows/amd64"}); err == nil || !strings.Contains(err.Error(), "SIGN_KEY") {
		t.Errorf("SIGN_CERT without SIGN_KEY: err %v", err)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

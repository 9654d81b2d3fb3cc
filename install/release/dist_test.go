package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/prereq"
	"github.com/google/go-cmp/cmp"
)

// allKinds is a config's every package.
func allKinds() map[string]bool {
	m := map[string]bool{}
	for _, k := range Kinds {
		m[k] = true
	}
	return m
}

// TestDistWritesEveryPackageSignedAndChecksummed builds two platforms the
// way make dist does, with a throwaway self-signed certificate, and checks
// the files, their checksums, the zips, the version and the signature of
// the Windows binary in the zip and in the MSI.
func TestDistWritesEveryPackageSignedAndChecksummed(t *testing.T) {
	slow(t)
	osslsigncode := prereq.Command(t, prereq.Setup, "osslsigncode")
	openssl := prereq.Command(t, prereq.Setup, "openssl")
	msiextract := prereq.Command(t, prereq.Setup+" (apt-get install msitools)", "msiextract")
	prereq.Command(t, prereq.Setup+" (apt-get install msitools)", "msibuild")
	prereq.Command(t, prereq.Setup+" (apt-get install wixl)", "wixl")
	sha256sum := prereq.Command(t, prereq.Setup, "sha256sum")
	tmp := t.TempDir()
	cert, key := filepath.Join(tmp, "cert.pem"), filepath.Join(tmp, "key.pem")
	if out, err := exec.Command(openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
		"-subj", "/CN=Gnosis Throwaway Test Signing", "-keyout", key, "-out", cert).CombinedOutput(); err != nil {
		t.Fatalf("openssl: %v\n%s", err, out)
	}
	t.Setenv("SIGN_CERT", cert)
	t.Setenv("SIGN_KEY", key)
	out := filepath.Join(tmp, "dist")
	t.Chdir("../..")
	if err := run(config{version: testVersion, out: out, downloadURL: DefaultDownloadURL,
		targets: []string{"windows/amd64", "linux/amd64"}, kinds: allKinds(), log: io.Discard}); err != nil {
		t.Fatal(err)
	}

	var names []string
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{Checksums, "gnosis-7.8.9-chrome-store.zip", "gnosis-7.8.9-chrome.zip", "gnosis-7.8.9-firefox.xpi", "gnosis-7.8.9-linux-amd64.deb",
		"gnosis-7.8.9-linux-amd64.rpm", "gnosis-7.8.9-linux-amd64.zip", "gnosis-7.8.9-windows-amd64.msi", "gnosis-7.8.9-windows-amd64.zip"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("dist (-want +got):\n%s", d)
	}
	check := exec.Command(sha256sum, "-c", Checksums)
	check.Dir = out
	sums, err := check.CombinedOutput()
	if err != nil || strings.Count(string(sums), ": OK\n") != len(want)-1 {
		t.Errorf("sha256sum -c %s: %v\n%s", Checksums, err, sums)
	}
	checkEveryPackageCarriesTheLicence(t, out)
	if _, err := os.Stat("extension/hostbin"); err == nil {
		t.Error("make dist wrote extension/hostbin: no executable belongs in the extension")
	}

	win := zipEntries(t, filepath.Join(out, "gnosis-7.8.9-windows-amd64.zip"))
	const w = "gnosis-7.8.9-windows-amd64/"
	for name, mode := range map[string]os.FileMode{
		w + "gnosis-host.exe": 0o755, w + "install.cmd": 0o644, w + "uninstall.cmd": 0o644, w + "install.ps1": 0o644,
		w + "README.md": 0o644, w + "docs/install.md": 0o644, w + "manifests/com.gnosis.host.json": 0o644,
		w + "manifests/com.gnosis.host.firefox.json": 0o644, w + "extension/manifest.json": 0o644, w + "extension/background.js": 0o644,
		w + "extension/" + ReleaseJS: 0o644,
	} {
		if got, ok := win[name]; !ok || got != mode {
			t.Errorf("windows zip: %s mode %v present %v, want %v", name, got, ok, mode)
		}
	}
	linux := zipEntries(t, filepath.Join(out, "gnosis-7.8.9-linux-amd64.zip"))
	const l = "gnosis-7.8.9-linux-amd64/"
	for name, mode := range map[string]os.FileMode{l + "gnosis-host": 0o755, l + "install.sh": 0o755} {
		if got, ok := linux[name]; !ok || got != mode {
			t.Errorf("linux zip: %s mode %v present %v, want %v", name, got, ok, mode)
		}
	}
	if _, ok := linux[l+"install.cmd"]; ok {
		t.Error("linux zip holds the Windows scripts")
	}
	var bad []string
	for _, z := range []map[string]os.FileMode{win, linux} {
		for name := range z {
			if strings.Contains(name, "/extension/hostbin/") || strings.Contains(name, "/extension/test/") {
				bad = append(bad, name)
			}
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("zip holds files it should not: %v", bad)
	}
	if m := string(zipFile(t, filepath.Join(out, "gnosis-7.8.9-windows-amd64.zip"), w+"extension/manifest.json")); !strings.Contains(m, `"version": "7.8.9"`) || !strings.Contains(m, `"key"`) {
		t.Errorf("the unpacked extension's manifest lacks the version or the key that fixes its id:\n%s", m)
	}

	// The Chrome package a person loads unpacked keeps the key; the store's has none.
	for name, wantKey := range map[string]bool{"gnosis-7.8.9-chrome.zip": true, "gnosis-7.8.9-chrome-store.zip": false} {
		if m := string(zipFile(t, filepath.Join(out, name), "manifest.json")); strings.Contains(m, `"key"`) != wantKey || !strings.Contains(m, `"version": "7.8.9"`) {
			t.Errorf("%s: key present %v, want %v; or the version is missing:\n%s", name, !wantKey, wantKey, m)
		}
	}

	// The Linux binary from the zip runs and carries the version.
	host := filepath.Join(tmp, "gnosis-host")
	os.WriteFile(host, zipFile(t, filepath.Join(out, "gnosis-7.8.9-linux-amd64.zip"), l+"gnosis-host"), 0o755)
	if v, err := exec.Command(host, "version").Output(); err != nil || !strings.Contains(string(v), testVersion) {
		t.Errorf("gnosis-host version: %q %v", v, err)
	}

	// The signature: present, digest intact, signer is our certificate. The
	// chain is self-signed, so plain verify rejects it as untrusted; trusting
	// the throwaway certificate as the CA, verify succeeds.
	exe := filepath.Join(tmp, "zipped.exe")
	os.WriteFile(exe, zipFile(t, filepath.Join(out, "gnosis-7.8.9-windows-amd64.zip"), w+"gnosis-host.exe"), 0o755)
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
	// The MSI installs the same signed binary.
	extracted := filepath.Join(tmp, "msi")
	if o, err := exec.Command(msiextract, "-C", extracted, filepath.Join(out, "gnosis-7.8.9-windows-amd64.msi")).CombinedOutput(); err != nil {
		t.Fatalf("msiextract: %v\n%s", err, o)
	}
	var inMSI []byte
	filepath.Walk(extracted, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Name() == "gnosis-host.exe" {
			inMSI = mustRead(t, p)
		}
		return nil
	})
	if string(inMSI) != string(mustRead(t, exe)) {
		t.Error("the MSI's gnosis-host.exe differs from the signed one in the zip")
	}
}

// Without a certificate the Windows binary is left unsigned, and a
// half-given certificate is an error rather than a silent unsigned build.
func TestDistSigningConfiguration(t *testing.T) {
	slow(t)
	osslsigncode := prereq.Command(t, prereq.Setup, "osslsigncode")
	tmp := t.TempDir()
	t.Setenv("SIGN_CERT", "")
	t.Setenv("SIGN_KEY", "")
	t.Setenv("SIGN_PFX", "")
	t.Chdir("../..")
	c := config{version: testVersion, out: filepath.Join(tmp, "dist"), downloadURL: DefaultDownloadURL,
		targets: []string{"windows/amd64"}, kinds: map[string]bool{"zip": true}, log: io.Discard}
	if err := run(c); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(tmp, "gnosis-host.exe")
	os.WriteFile(exe, zipFile(t, filepath.Join(c.out, "gnosis-7.8.9-windows-amd64.zip"), "gnosis-7.8.9-windows-amd64/gnosis-host.exe"), 0o755)
	out, _ := exec.Command(osslsigncode, "verify", "-in", exe).CombinedOutput()
	if !strings.Contains(string(out), "No signature found") {
		t.Errorf("unsigned build: verify says\n%s", out)
	}
	t.Setenv("SIGN_CERT", filepath.Join(tmp, "cert.pem"))
	if err := run(c); err == nil || !strings.Contains(err.Error(), "SIGN_KEY") {
		t.Errorf("SIGN_CERT without SIGN_KEY: err %v", err)
	}
}

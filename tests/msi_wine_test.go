package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/prereq"
)

// The release's MSI under Wine's msiexec, in TestWine's prefix: it installs
// for the current user without administrator rights, writes every browser's
// HKCU key naming a manifest in %LOCALAPPDATA%\Gnosis, which doctor accepts;
// MUNIM=path on the command line sets the Munim provider through the
// installed host; uninstalling takes the keys, the files and the folder
// away and keeps the configuration.
func testMSI(t *testing.T, w *wine) {
	if testing.Short() {
		t.Skip("builds the release's MSI; skipped with -short")
	}
	out := t.TempDir()
	build := exec.Command("go", "run", "./install/release", "-out", out, "-targets", "windows/amd64", "-packages", "msi")
	build.Dir = repoRoot
	if o, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the MSI: %v\n%s", err, o)
	}
	found, _ := filepath.Glob(filepath.Join(out, "gnosis-*-windows-amd64.msi"))
	if len(found) != 1 {
		t.Fatalf("the release tool wrote no MSI: %v", found)
	}
	msi := wineRelease + `\` + filepath.Base(found[0])
	copyTo(t, found[0], w.unix(msi))
	const munim = `C:\Munim Tools\munim.exe` // a path with a space, given as a property
	copyTo(t, w.unix(wineMunim), w.unix(munim))

	dir := w.localAppData + `\Gnosis`
	manifest, firefoxManifest := dir+`\com.gnosis.host.json`, dir+`\com.gnosis.host.firefox.json`
	wantKeys := map[string]string{}
	for _, k := range winKeys {
		wantKeys[k] = manifest
	}
	wantKeys[`HKCU\Software\Mozilla`+regSuffix] = firefoxManifest
	appData, _ := w.cmd(t, "cmd", "/c", "echo", "%APPDATA%")
	config := w.unix(strings.TrimSpace(appData[strings.LastIndex(appData, `C:\`):]) + `\gnosis\config.json`)
	// Firefox is installed: its own key must outlive the MSI.
	const firefoxOwn = `HKCU\Software\Mozilla\Mozilla Firefox`
	if o, err := w.cmd(t, "reg", "add", firefoxOwn, "/f"); err != nil {
		t.Fatalf("reg add: %v\n%s", err, o)
	}
	before := map[string]bool{}
	for _, k := range append(vendorKeys, `HKCU\Software\Gnosis`) {
		before[k] = w.keyExists(t, k)
	}

	uninstall := func(t *testing.T) {
		t.Helper()
		if o, err := w.cmd(t, "msiexec", "/x", msi, "/qn"); err != nil {
			t.Fatalf("msiexec /x: %v\n%s", err, o)
		}
		if got := w.registration(t); len(got.Keys) != 0 || got.Manifest != "" || got.FirefoxManifest != "" {
			t.Errorf("left after uninstalling the MSI: %+v", got.Keys)
		}
		if _, err := os.Stat(w.unix(dir)); !os.IsNotExist(err) {
			entries, _ := os.ReadDir(w.unix(dir))
			t.Errorf("the install folder is still there (%v): %v", err, entries)
		}
		// What the MSI created goes (keys left empty above ours too); a
		// browser's own key stays.
		for k, was := range before {
			if !was && w.keyExists(t, k) {
				t.Errorf("uninstalling the MSI left %s, which it created", k)
			}
		}
		if !w.keyExists(t, firefoxOwn) {
			t.Errorf("uninstalling the MSI took Firefox's own key %s", firefoxOwn)
		}
	}

	t.Run("InstallsPerUserAndDoctorPasses", func(t *testing.T) {
		if o, err := w.cmd(t, "msiexec", "/i", msi, "/qn"); err != nil {
			t.Fatalf("msiexec /i: %v\n%s", err, o)
		}
		reg := w.registration(t)
		if d := cmp.Diff(wantKeys, reg.Keys); d != "" {
			t.Errorf("registry after the MSI (-want +got):\n%s", d)
		}
		var m struct{ Path string }
		if err := json.Unmarshal([]byte(reg.Manifest), &m); err != nil || m.Path != "gnosis-host.exe" {
			t.Errorf("manifest %s: path %q (%v), want gnosis-host.exe beside it\n%s", manifest, m.Path, err, reg.Manifest)
		}
		o, err := w.cmdEnv(t, []string{gcOften}, dir+`\gnosis-host.exe`, "doctor", "--browsers", "chrome,edge,firefox")
		if err != nil {
			t.Errorf("doctor after the MSI: %v\n%s", err, o)
		}
		for _, want := range []string{`chrome\s+registry value\s+ok`, `chrome\s+self-test\s+ok\s+the host answers`, `firefox\s+self-test\s+ok`, `firefox\s+host binary\s+ok`} {
			if !regexp.MustCompile(want).MatchString(o) {
				t.Errorf("doctor lacks %s:\n%s", want, o)
			}
		}
		uninstall(t)
	})

	t.Run("MunimPropertySetsTheProviderAndUninstallKeepsTheConfig", func(t *testing.T) {
		if o, err := w.cmd(t, "msiexec", "/i", msi, "/qn", "MUNIM="+munim); err != nil {
			t.Fatalf("msiexec /i MUNIM=...: %v\n%s", err, o)
		}
		if d := cmp.Diff(wantKeys, w.registration(t).Keys); d != "" {
			t.Errorf("registry after the MSI with MUNIM (-want +got):\n%s", d)
		}
		var cfg struct {
			Providers []struct{ Name, Command string }
		}
		if err := json.Unmarshal(mustRead(t, config), &cfg); err != nil || len(cfg.Providers) != 1 || cfg.Providers[0].Command != munim {
			t.Errorf("config after MUNIM=%s: %+v (%v)", munim, cfg, err)
		}
		o, err := w.cmdEnv(t, []string{gcOften}, dir+`\gnosis-host.exe`, "doctor", "--browsers", "chrome")
		if err != nil || !regexp.MustCompile(`provider munim\s+ok`).MatchString(o) {
			t.Errorf("doctor with the MSI's Munim: %v\n%s", err, o)
		}
		uninstall(t)
		if data, err := os.ReadFile(config); err != nil || !strings.Contains(string(data), `Munim Tools`) {
			t.Errorf("uninstalling the MSI took the configuration: %v\n%s", err, data)
		}
	})

	// A MUNIM value with a quote in it (msiexec takes one as "" inside a
	// quoted value; here it is set in the package's Property table, which
	// Wine's msiexec cannot be given otherwise) would, pasted into the
	// custom action's command line, end the path and add an argument of its
	// own: another extension allowed to start the host. The value never
	// reaches a command line: the configuration gets it as it is, and the
	// manifests allow the extensions they allowed.
	t.Run("AHostileMunimAddsNoArgument", func(t *testing.T) {
		msibuild := prereq.Command(t, prereq.Setup+" (apt-get install msitools)", "msibuild")
		const injected = "abcdefghijklmnopabcdefghijklmnop"
		hostile := munim + `" --extension-id ` + injected + ` --munim "` + munim
		crafted := filepath.Join(t.TempDir(), "crafted.msi")
		copyTo(t, found[0], crafted)
		if o, err := exec.Command(msibuild, crafted, "-q", "INSERT INTO `Property` (`Property`, `Value`) VALUES ('MUNIM', '"+hostile+"')").CombinedOutput(); err != nil {
			t.Fatalf("msibuild: %v\n%s", err, o)
		}
		craftedMSI := wineRelease + `\crafted.msi`
		copyTo(t, crafted, w.unix(craftedMSI))
		os.Remove(config)
		if o, err := w.cmd(t, "msiexec", "/i", craftedMSI, "/qn"); err != nil {
			t.Fatalf("msiexec /i crafted.msi: %v\n%s", err, o)
		}
		reg := w.registration(t)
		for name, m := range map[string]string{"chrome": reg.Manifest, "firefox": reg.FirefoxManifest} {
			if m == "" || strings.Contains(m, injected) {
				t.Errorf("the %s manifest after the crafted MUNIM:\n%s", name, m)
			}
		}
		var cfg struct {
			Providers []struct{ Name, Command string }
		}
		if err := json.Unmarshal(mustRead(t, config), &cfg); err != nil || len(cfg.Providers) != 1 || cfg.Providers[0].Command != hostile {
			t.Errorf("config after the crafted MUNIM: %+v (%v), want its command exactly %q", cfg, err, hostile)
		}
		if o, err := w.cmd(t, "msiexec", "/x", craftedMSI, "/qn"); err != nil {
			t.Fatalf("msiexec /x: %v\n%s", err, o)
		}
		if w.keyExists(t, `HKCU\Software\Gnosis`) {
			t.Errorf("uninstalling left HKCU\\Software\\Gnosis (the Munim value)")
		}
	})
}

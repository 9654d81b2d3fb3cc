package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gnosis/gnosis/host/nmclient"
	"github.com/gnosis/gnosis/internal/prereq"
	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/gnosis/gnosis/internal/testwait"
	"github.com/gnosis/gnosis/internal/winetest"
	"github.com/google/go-cmp/cmp"
)

// The Windows build under Wine: the real GOOS=windows gnosis-host.exe writes
// the registry keys, install.cmd writes the same ones under Wine's cmd, and
// the .exe serves health over stdin/stdout with a Windows build of fakemunim
// as its provider. Wine is not Windows: this proves registry keys, paths with
// spaces, process spawning and framing, beside the table-driven key tests in
// host/register.
//
// One prefix serves every step (creating one takes ~10 s), so the steps are
// subtests of one test, in order.

const (
	wineRelease = `C:\Gnosis Release 1.0` // an unzipped release, path with spaces
	wineMunim   = `C:\Program Files\Fake Munim\fakemunim.exe`
	regSuffix   = `\NativeMessagingHosts\com.gnosis.host`
)

// winKeys are the keys every Windows installer writes (Chrome's is also read
// by Chrome's channels, Brave and Vivaldi; Edge's by its channels; the last
// is Firefox's, which names Firefox's own manifest).
var winKeys = []string{`HKCU\Software\Google\Chrome` + regSuffix, `HKCU\Software\Chromium` + regSuffix, `HKCU\Software\Microsoft\Edge` + regSuffix,
	`HKCU\Software\Mozilla` + regSuffix}

type wine struct {
	loader, server string
	prefix         string
	env            []string
	localAppData   string // as Windows sees it
	exe            []byte // the built gnosis-host.exe
}

// wineFix is how to get what the Wine tests need.
const wineFix = prereq.Setup + " (apt-get install wine64 gcc-mingw-w64-x86-64-win32)"

func newWine(t *testing.T) *wine {
	t.Helper()
	w := &wine{loader: prereq.Command(t, wineFix, "wine64", "/usr/lib/wine/wine64")}
	gcc := prereq.Command(t, wineFix, "x86_64-w64-mingw32-gcc")
	w.server = winetest.Server(w.loader)
	tmp := t.TempDir()
	w.prefix = filepath.Join(tmp, "prefix")
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k == "WINEPREFIX" || k == "WINEDEBUG" || k == "GNOSIS_CONFIG" || k == "MUNIM_PATH" {
			continue
		}
		w.env = append(w.env, kv)
	}
	w.env = append(w.env, "WINEPREFIX="+w.prefix, "WINEDEBUG=-all")

	build := func(pkg, out string) {
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg) // -trimpath: shares the build cache with install/release
		cmd.Dir = repoRoot
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s for windows: %v\n%s", pkg, err, out)
		}
	}
	build("./cmd/gnosis-host", filepath.Join(tmp, "gnosis-host.exe"))
	build("./tests/fakemunim", filepath.Join(tmp, "fakemunim.exe"))
	dll := filepath.Join(tmp, "bcryptprimitives.dll")
	if out, err := exec.Command(gcc, "-shared", "-o", dll, filepath.Join(repoRoot, "tests/testdata/wine/processprng.c"),
		"-ladvapi32", "-Wl,--kill-at").CombinedOutput(); err != nil {
		t.Fatalf("build the ProcessPrng shim: %v\n%s", err, out)
	}

	// The first command creates the prefix.
	out, err := w.cmd(t, "cmd", "/c", "echo", "%LOCALAPPDATA%")
	if err != nil {
		t.Fatalf("create wine prefix: %v\n%s", err, out)
	}
	for _, line := range strings.Split(out, "\n") { // stdout and Wine's own notes on stderr
		if strings.HasPrefix(line, `C:\`) {
			w.localAppData = strings.TrimSpace(line)
		}
	}
	if w.localAppData == "" {
		t.Fatalf("no %%LOCALAPPDATA%% in:\n%s", out)
	}
	winetest.Cleanup(t, w.server, w.prefix, w.env)
	copyTo(t, dll, w.unix(`C:\windows\system32\bcryptprimitives.dll`))
	copyTo(t, filepath.Join(tmp, "gnosis-host.exe"), w.unix(wineRelease+`\gnosis-host.exe`))
	copyTo(t, filepath.Join(repoRoot, "install/windows/install.cmd"), w.unix(wineRelease+`\install.cmd`))
	copyTo(t, filepath.Join(repoRoot, "install/windows/uninstall.cmd"), w.unix(wineRelease+`\uninstall.cmd`))
	copyTo(t, filepath.Join(tmp, "fakemunim.exe"), w.unix(wineMunim))
	w.exe = mustRead(t, filepath.Join(tmp, "gnosis-host.exe"))
	return w
}

// unix maps a C:\ path of the prefix to the Unix file behind it.
func (w *wine) unix(p string) string {
	rest, ok := strings.CutPrefix(p, `C:\`)
	if !ok {
		panic("not a C: path: " + p)
	}
	return filepath.Join(w.prefix, "drive_c", filepath.FromSlash(strings.ReplaceAll(rest, `\`, "/")))
}

// wineCommandTimeout bounds one Wine command; the slowest, the first in a new
// prefix, takes about 10 s.
const wineCommandTimeout = 2 * time.Minute

// gcOften makes a Go program collect garbage constantly, so that a handle
// closed by a finalizer (a second *os.File of the same handle) fails every
// run, not by chance. The host inherits it from doctor's self-test.
const gcOften = "GOGC=1"

// cmd runs a Windows program under Wine and returns its combined output.
func (w *wine) cmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return w.cmdEnv(t, nil, args...)
}

// cmdEnv is cmd with extra environment variables.
func (w *wine) cmdEnv(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	return w.cmdIn(t, env, nil, args...)
}

// cmdIn is cmdEnv with stdin.
func (w *wine) cmdIn(t *testing.T, env []string, stdin io.Reader, args ...string) (string, error) {
	t.Helper()
	// A bound on every Wine command: a hang (seen once, in a prefix another run was still using) fails
	// this test with a clear message instead of stalling the whole suite until go test's timeout.
	ctx, cancel := context.WithTimeout(context.Background(), wineCommandTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, w.loader, args...)
	c.WaitDelay = 5 * time.Second
	c.Stdin = stdin
	c.Env = append(append([]string{}, w.env...), env...)
	c.Dir = filepath.Dir(w.prefix)
	// Output goes to a file, not a pipe: Wine's background processes
	// (wineserver, services) inherit it and would hold a pipe open until
	// they exit, seconds later.
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c.Stdout, c.Stderr = f, f
	err = c.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("wine %s: no exit within %v: %w", strings.Join(args, " "), wineCommandTimeout, ctx.Err())
	}
	out, _ := os.ReadFile(f.Name())
	return strings.ReplaceAll(string(out), "\r\n", "\n"), err
}

// regValue is a key's default value, or "" and false when the key is absent.
func (w *wine) regValue(t *testing.T, key string) (string, bool) {
	t.Helper()
	out, err := w.cmd(t, "reg", "query", key, "/ve")
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(out, "\n") {
		if _, v, ok := strings.Cut(line, "REG_SZ"); ok {
			return strings.TrimSpace(v), true
		}
	}
	t.Fatalf("reg query %s: no REG_SZ default value in:\n%s", key, out)
	return "", false
}

// keyExists reports whether a registry key exists.
func (w *wine) keyExists(t *testing.T, key string) bool {
	t.Helper()
	_, err := w.cmd(t, "reg", "query", key)
	return err == nil
}

// vendorKeys are the browsers' own keys above the ones install writes, which
// install creates when the browser is absent.
var vendorKeys = []string{`HKCU\Software\Google`, `HKCU\Software\Chromium`, `HKCU\Software\Microsoft\Edge`, `HKCU\Software\Mozilla`}

// registration is what the browsers see: each key's value, and the manifest
// they name (line endings normalised: cmd's echo writes CRLF).
type registration struct {
	Keys            map[string]string
	Manifest        string
	FirefoxManifest string
	ExeSame         bool
}

func (w *wine) registration(t *testing.T) registration {
	t.Helper()
	r := registration{Keys: map[string]string{}}
	for _, k := range winKeys {
		if v, ok := w.regValue(t, k); ok {
			r.Keys[k] = v
		}
	}
	manifest := w.localAppData + `\Gnosis\com.gnosis.host.json`
	if data, err := os.ReadFile(w.unix(manifest)); err == nil {
		r.Manifest = strings.ReplaceAll(string(data), "\r\n", "\n")
	}
	if data, err := os.ReadFile(w.unix(w.localAppData + `\Gnosis\com.gnosis.host.firefox.json`)); err == nil {
		r.FirefoxManifest = strings.ReplaceAll(string(data), "\r\n", "\n")
	}
	if data, err := os.ReadFile(w.unix(w.localAppData + `\Gnosis\gnosis-host.exe`)); err == nil {
		r.ExeSame = bytes.Equal(data, w.exe)
	}
	return r
}

func copyTo(t *testing.T, src, dst string) {
	t.Helper()
	data := mustRead(t, src)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestWine(t *testing.T) {
	testshort.Parallel(t)
	testshort.Skip(t, "the Windows build under Wine")
	w := newWine(t)
	exe := wineRelease + `\gnosis-host.exe`
	manifest := w.localAppData + `\Gnosis\com.gnosis.host.json`
	firefoxManifest := w.localAppData + `\Gnosis\com.gnosis.host.firefox.json`
	installed := w.localAppData + `\Gnosis\gnosis-host.exe`
	wantKeys := map[string]string{}
	for _, k := range winKeys {
		wantKeys[k] = manifest
	}
	wantKeys[`HKCU\Software\Mozilla`+regSuffix] = firefoxManifest
	var goReg registration
	before := map[string]bool{}
	for _, k := range vendorKeys {
		before[k] = w.keyExists(t, k)
	}

	ok := t.Run("InstallWritesKeysNamingTheCopiedExe", func(t *testing.T) {
		// No browser is installed in the prefix: install registers for all,
		// which on Windows is three Chromium keys and Firefox's.
		out, err := w.cmd(t, exe, "install", "--munim", wineMunim)
		if err != nil {
			t.Fatalf("install: %v\n%s", err, out)
		}
		goReg = w.registration(t)
		if d := cmp.Diff(wantKeys, goReg.Keys); d != "" {
			t.Errorf("registry after install (-want +got):\n%s\n%s", d, out)
		}
		if !goReg.ExeSame {
			t.Errorf("%s is not the built gnosis-host.exe", installed)
		}
		var m struct {
			Name, Path, Type string
			AllowedOrigins   []string `json:"allowed_origins"`
		}
		if err := json.Unmarshal([]byte(goReg.Manifest), &m); err != nil {
			t.Fatalf("manifest %s: %v\n%s", manifest, err, goReg.Manifest)
		}
		want := []string{"com.gnosis.host", installed, "stdio", "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd/"}
		if d := cmp.Diff(want, append([]string{m.Name, m.Path, m.Type}, m.AllowedOrigins...)); d != "" {
			t.Errorf("manifest (-want +got):\n%s", d)
		}
		var fm map[string]any
		if err := json.Unmarshal([]byte(goReg.FirefoxManifest), &fm); err != nil {
			t.Fatalf("Firefox manifest %s: %v\n%s", firefoxManifest, err, goReg.FirefoxManifest)
		}
		wantFM := map[string]any{"name": "com.gnosis.host", "description": "Gnosis capability host", "path": installed,
			"type": "stdio", "allowed_extensions": []any{"gnosis@gnosis.dev"}}
		if d := cmp.Diff(wantFM, fm); d != "" {
			t.Errorf("Firefox manifest (-want +got):\n%s", d)
		}
		for _, absent := range []string{`HKLM\Software\Google\Chrome` + regSuffix, `HKCU\Software\BraveSoftware` + regSuffix} {
			if _, ok := w.regValue(t, absent); ok {
				t.Errorf("install wrote %s", absent)
			}
		}
	})
	if !ok {
		t.FailNow()
	}

	t.Run("ExeAnswersHealthWithFakemunimProvider", func(t *testing.T) {
		stderr := nmclient.NewLogTail(256 << 10)
		c, err := nmclient.Start(installed, nmclient.WithLauncher(w.loader), nmclient.WithArgs("--parent-window=0"),
			nmclient.WithEnv(append(w.env, gcOften)), nmclient.WithStderr(stderr))
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if c.Stop(10 * time.Second) {
				t.Errorf("host did not exit within 10 s of stdin closing")
			}
		}()
		var h struct {
			OK           bool
			Status       string
			Capabilities int
			Providers    []struct{ Name, State, Error string }
		}
		testwait.Until(t, 60*time.Second, func() error {
			b, err := c.Call("health", nil, nil)
			if err != nil {
				t.Fatalf("health: %v; stderr:\n%s", err, stderr.String())
			}
			if err := json.Unmarshal(b, &h); err != nil {
				t.Fatalf("health reply %s: %v", b, err)
			}
			if h.Status != "ok" {
				return fmt.Errorf("health under Wine is %q, want ok: %+v\nstderr:\n%s", h.Status, h, stderr.String())
			}
			return nil
		})
		if !h.OK || h.Status != "ok" || len(h.Providers) != 1 || h.Providers[0].State != "ready" || h.Capabilities < 10 {
			t.Fatalf("health under Wine: %+v\nstderr:\n%s", h, stderr.String())
		}
		// install grants nothing: the user grants a site (policy.set writes
		// the config atomically, on Windows too), then that site's call runs.
		const site = "https://chat.example"
		if b, err := c.Call("execute", map[string]any{"capability": "computer.echo", "arguments": map[string]any{}, "origin": site}, nil); err != nil ||
			!bytes.Contains(b, []byte(`"FORBIDDEN"`)) {
			t.Errorf("execute before any grant under Wine: %s (%v), want FORBIDDEN", b, err)
		}
		if b, err := c.Call("policy.set", map[string]any{"origin": site, "grants": map[string]string{"computer.echo": "allow"}}, nil); err != nil ||
			!bytes.Contains(b, []byte(`"ok":true`)) {
			t.Fatalf("policy.set under Wine: %s (%v)", b, err)
		}
		b, err := c.Call("execute", map[string]any{"capability": "computer.echo", "arguments": map[string]any{"path": `C:\Program Files\x y`}, "origin": site}, nil)
		if err != nil || !bytes.Contains(b, []byte(`"ok":true`)) || !bytes.Contains(b, []byte(`C:\\\\Program Files\\\\x y`)) {
			t.Errorf("execute computer.echo under Wine: %s (%v)", b, err)
		}
	})

	t.Run("DoctorPasses", func(t *testing.T) {
		out, err := w.cmdEnv(t, []string{gcOften}, installed, "doctor", "--browsers", "chrome,edge,brave,firefox")
		if err != nil {
			t.Fatalf("doctor: %v\n%s", err, out)
		}
		// Firefox's row: its key names its manifest, and the self-test starts
		// the .exe as Firefox does (manifest path, add-on id), which it trusts.
		ffKey := `HKCU\Software\Mozilla` + regSuffix + " = " + firefoxManifest
		if !strings.Contains(out, ffKey) || !regexp.MustCompile(`firefox\s+self-test\s+ok\s+health ok, [1-9]`).MatchString(out) {
			t.Errorf("doctor's Firefox rows lack %q or a self-test with capabilities:\n%s", ffKey, out)
		}
		for _, want := range []string{"registry value  ok", "self-test", "health", "provider munim  ok", "Edge reads only the first key"} {
			if !strings.Contains(out, want) {
				t.Errorf("doctor output lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("DoctorExplainsRegistryMismatchAndEdgeKeyOrder", func(t *testing.T) {
		// Brave reads Chrome's key; point it at a manifest that is not there.
		if out, err := w.cmd(t, "reg", "add", winKeys[0], "/ve", "/t", "REG_SZ", "/d", `C:\nowhere\com.gnosis.host.json`, "/f"); err != nil {
			t.Fatalf("reg add: %v\n%s", err, out)
		}
		out, err := w.cmd(t, installed, "doctor", "--browsers", "brave", "--no-self-test")
		if err == nil || !strings.Contains(out, `names C:\nowhere\com.gnosis.host.json, which does not exist`) {
			t.Errorf("doctor on a key naming a missing manifest: err %v\n%s", err, out)
		}
		// Edge reads HKCU Edge's key first; a different Chrome key is ignored.
		copyTo(t, w.unix(manifest), w.unix(`C:\other\com.gnosis.host.json`))
		w.cmd(t, "reg", "add", winKeys[0], "/ve", "/t", "REG_SZ", "/d", `C:\other\com.gnosis.host.json`, "/f")
		out, _ = w.cmd(t, installed, "doctor", "--browsers", "edge", "--no-self-test")
		if !strings.Contains(out, "WARN") || !strings.Contains(out, `is ignored`) {
			t.Errorf("doctor does not warn that Edge ignores a later key:\n%s", out)
		}
		// Put things back as install left them.
		if out, err := w.cmd(t, installed, "install"); err != nil {
			t.Fatalf("reinstall: %v\n%s", err, out)
		}
		if d := cmp.Diff(goReg, w.registration(t)); d != "" {
			t.Errorf("reinstall did not restore the registration (-first +now):\n%s", d)
		}
	})

	ok = t.Run("UninstallRemovesKeysAndFiles", func(t *testing.T) {
		// Edge is installed after Gnosis: its key now holds more than ours.
		const edgeOwn = `HKCU\Software\Microsoft\Edge\BLBeacon`
		if out, err := w.cmd(t, "reg", "add", edgeOwn, "/v", "version", "/d", "1.0", "/f"); err != nil {
			t.Fatalf("reg add: %v\n%s", err, out)
		}
		out, err := w.cmd(t, exe, "uninstall")
		if err != nil {
			t.Fatalf("uninstall: %v\n%s", err, out)
		}
		if got := w.registration(t); len(got.Keys) != 0 || got.Manifest != "" {
			t.Errorf("left after uninstall: %+v", got)
		}
		// The parent keys install created go when empty; Edge's stays, without
		// its NativeMessagingHosts key.
		after := map[string]bool{}
		for _, k := range vendorKeys {
			after[k] = w.keyExists(t, k)
		}
		want := maps.Clone(before)
		want[`HKCU\Software\Microsoft\Edge`] = true
		if d := cmp.Diff(want, after); d != "" {
			t.Errorf("keys after uninstall (-want +got):\n%s\n%s", d, out)
		}
		for _, k := range []string{edgeOwn, `HKCU\Software\Microsoft\Edge\NativeMessagingHosts`} {
			if got, want := w.keyExists(t, k), k == edgeOwn; got != want {
				t.Errorf("%s exists: %v, want %v\n%s", k, got, want, out)
			}
		}
		// Edge goes again, for the steps below.
		gone := []string{edgeOwn}
		if !before[`HKCU\Software\Microsoft\Edge`] {
			gone = append(gone, `HKCU\Software\Microsoft\Edge`)
		}
		for _, k := range gone {
			if out, err := w.cmd(t, "reg", "delete", k, "/f"); err != nil {
				t.Fatalf("reg delete %s: %v\n%s", k, err, out)
			}
		}
		if _, err := os.Stat(w.unix(w.localAppData + `\Gnosis`)); !os.IsNotExist(err) {
			t.Errorf("install folder still there: %v", err)
		}
	})
	if !ok {
		t.FailNow()
	}

	t.Run("InstallCmdGivesTheSameRegistration", func(t *testing.T) {
		out, err := w.cmd(t, "cmd", "/c", wineRelease+`\install.cmd`, "/quiet")
		if err != nil {
			t.Fatalf("install.cmd: %v\n%s", err, out)
		}
		if d := cmp.Diff(goReg, w.registration(t)); d != "" {
			t.Errorf("install.cmd differs from gnosis-host.exe install (-exe +cmd):\n%s\n%s", d, out)
		}
		out, err = w.cmd(t, "cmd", "/c", wineRelease+`\uninstall.cmd`, "/quiet")
		if err != nil {
			t.Fatalf("uninstall.cmd: %v\n%s", err, out)
		}
		if got := w.registration(t); len(got.Keys) != 0 || got.Manifest != "" {
			t.Errorf("left after uninstall.cmd: %+v\n%s", got, out)
		}
	})

	t.Run("OneClickRegistersAndWaitsForEnter", func(t *testing.T) {
		// Double-clicked: no arguments. It registers for the browsers found,
		// then waits for Enter (given here on stdin) so the console window
		// stays readable. Firefox is found by the key its installer writes;
		// the keys uninstall.cmd left under Software\Chromium and the others
		// (an empty NativeMessagingHosts) do not make those browsers found.
		if out, err := w.cmd(t, "reg", "add", `HKCU\Software\Mozilla\Mozilla Firefox`, "/f"); err != nil {
			t.Fatalf("reg add: %v\n%s", err, out)
		}
		out, err := w.cmdIn(t, nil, strings.NewReader("\r\n"), exe)
		if err != nil {
			t.Fatalf("one click: %v\n%s", err, out)
		}
		if !strings.Contains(out, "Press Enter") {
			t.Errorf("one click does not wait for Enter:\n%s", out)
		}
		ffKey := `HKCU\Software\Mozilla` + regSuffix
		if d := cmp.Diff(map[string]string{ffKey: goReg.Keys[ffKey]}, w.registration(t).Keys); d != "" {
			t.Errorf("one click registration with only Firefox installed (-want +got):\n%s\n%s", d, out)
		}
		if out, err := w.cmd(t, exe, "uninstall"); err != nil {
			t.Errorf("uninstall: %v\n%s", err, out)
		}
	})

	t.Run("MSI", func(t *testing.T) { testMSI(t, w) }) // msi_wine_test.go
}

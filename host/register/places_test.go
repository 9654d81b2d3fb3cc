package register

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	linuxEnv  = Env{GOOS: "linux", Home: "/home/ada", ConfigHome: "/home/ada/.config", DataHome: "/home/ada/.local/share"}
	darwinEnv = Env{GOOS: "darwin", Home: "/Users/ada"}
	winEnv    = Env{GOOS: "windows", Home: `C:\Users\ada`, LocalAppData: `C:\Users\ada\AppData\Local`}
)

// place is where one browser looks, on one system, at one scope.
type place struct {
	user, system string
}

// The expected places are written out by hand from the browsers' documentation,
// not computed from the table, so a typo in the table fails here.
func TestManifestPathsLinux(t *testing.T) {
	const u = "/home/ada/.config/"
	const f = "/com.gnosis.host.json"
	want := map[string]place{
		"chrome":        {u + "google-chrome/NativeMessagingHosts" + f, "/etc/opt/chrome/native-messaging-hosts" + f},
		"chrome-beta":   {u + "google-chrome-beta/NativeMessagingHosts" + f, "/etc/opt/chrome/native-messaging-hosts" + f},
		"chrome-dev":    {u + "google-chrome-unstable/NativeMessagingHosts" + f, "/etc/opt/chrome/native-messaging-hosts" + f},
		"chrome-canary": {u + "google-chrome-canary/NativeMessagingHosts" + f, "/etc/opt/chrome/native-messaging-hosts" + f},
		"chromium":      {u + "chromium/NativeMessagingHosts" + f, "/etc/chromium/native-messaging-hosts" + f},
		"edge":          {u + "microsoft-edge/NativeMessagingHosts" + f, "/etc/opt/edge/native-messaging-hosts" + f},
		"edge-beta":     {u + "microsoft-edge-beta/NativeMessagingHosts" + f, "/etc/opt/edge/native-messaging-hosts" + f},
		"edge-dev":      {u + "microsoft-edge-dev/NativeMessagingHosts" + f, "/etc/opt/edge/native-messaging-hosts" + f},
		"brave":         {u + "BraveSoftware/Brave-Browser/NativeMessagingHosts" + f, "/etc/opt/chrome/native-messaging-hosts" + f},
		"vivaldi":       {u + "vivaldi/NativeMessagingHosts" + f, "/etc/opt/vivaldi/native-messaging-hosts" + f},
		"firefox":       {"/home/ada/.mozilla/native-messaging-hosts" + f, "/usr/lib/mozilla/native-messaging-hosts" + f},
	}
	checkPlaces(t, linuxEnv, want)
}

func TestManifestPathsDarwin(t *testing.T) {
	const u = "/Users/ada/Library/Application Support/"
	const f = "/com.gnosis.host.json"
	const chromeSys = "/Library/Google/Chrome/NativeMessagingHosts" + f
	const edgeSys = "/Library/Microsoft/Edge/NativeMessagingHosts" + f
	want := map[string]place{
		"chrome":        {u + "Google/Chrome/NativeMessagingHosts" + f, chromeSys},
		"chrome-beta":   {u + "Google/Chrome Beta/NativeMessagingHosts" + f, chromeSys},
		"chrome-dev":    {u + "Google/Chrome Dev/NativeMessagingHosts" + f, chromeSys},
		"chrome-canary": {u + "Google/Chrome Canary/NativeMessagingHosts" + f, chromeSys},
		"chromium":      {u + "Chromium/NativeMessagingHosts" + f, "/Library/Application Support/Chromium/NativeMessagingHosts" + f},
		"edge":          {u + "Microsoft Edge/NativeMessagingHosts" + f, edgeSys},
		"edge-beta":     {u + "Microsoft Edge Beta/NativeMessagingHosts" + f, edgeSys},
		"edge-dev":      {u + "Microsoft Edge Dev/NativeMessagingHosts" + f, edgeSys},
		"edge-canary":   {u + "Microsoft Edge Canary/NativeMessagingHosts" + f, edgeSys},
		"brave":         {u + "BraveSoftware/Brave-Browser/NativeMessagingHosts" + f, chromeSys},
		"vivaldi":       {u + "Vivaldi/NativeMessagingHosts" + f, "/Library/Application Support/Chromium/NativeMessagingHosts" + f},
		"firefox":       {u + "Mozilla/NativeMessagingHosts" + f, "/Library/Application Support/Mozilla/NativeMessagingHosts" + f},
	}
	checkPlaces(t, darwinEnv, want)
}

// On Windows the Chromium browsers share one manifest; Firefox, which reads
// allowed_extensions instead of allowed_origins, has its own.
func TestManifestPathsWindowsShareOneFilePerFamily(t *testing.T) {
	const m = `C:\Users\ada\AppData\Local\Gnosis\com.gnosis.host.json`
	want := map[string]place{"firefox": {`C:\Users\ada\AppData\Local\Gnosis\com.gnosis.host.firefox.json`,
		`C:\Users\ada\AppData\Local\Gnosis\com.gnosis.host.firefox.json`}}
	for _, id := range []string{"chrome", "chrome-beta", "chrome-dev", "chrome-canary", "chromium",
		"edge", "edge-beta", "edge-dev", "edge-canary", "brave", "vivaldi"} {
		want[id] = place{m, m}
	}
	checkPlaces(t, winEnv, want)
}

func checkPlaces(t *testing.T, e Env, want map[string]place) {
	t.Helper()
	got := map[string]place{}
	for _, b := range Browsers {
		u, err := e.ManifestPath(b, User)
		if err != nil {
			continue
		}
		s, err := e.ManifestPath(b, System)
		if err != nil {
			t.Errorf("%s: user place but no system place: %v", b.ID, err)
		}
		got[b.ID] = place{u, s}
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(place{})); d != "" {
		t.Errorf("%s manifest paths (-want +got):\n%s", e.GOOS, d)
	}
}

// Chrome's channels, Brave, Vivaldi and Chromium read Chrome's key (Chromium
// also gets its own); Edge's channels read Edge's.
func TestRegistryKeys(t *testing.T) {
	const chrome = `Software\Google\Chrome\NativeMessagingHosts\com.gnosis.host`
	const edge = `Software\Microsoft\Edge\NativeMessagingHosts\com.gnosis.host`
	want := map[string][]string{
		"chrome": {chrome}, "chrome-beta": {chrome}, "chrome-dev": {chrome}, "chrome-canary": {chrome},
		"chromium": {chrome, `Software\Chromium\NativeMessagingHosts\com.gnosis.host`},
		"edge":     {edge}, "edge-beta": {edge}, "edge-dev": {edge}, "edge-canary": {edge},
		"brave": {chrome}, "vivaldi": {chrome},
		"firefox": {`Software\Mozilla\NativeMessagingHosts\com.gnosis.host`},
	}
	got := map[string][]string{}
	for _, b := range Browsers {
		k, err := winEnv.RegistryKeys(b)
		if err != nil {
			t.Fatalf("%s: %v", b.ID, err)
		}
		got[b.ID] = k
		if _, err := linuxEnv.RegistryKeys(b); err == nil {
			t.Errorf("%s: a registry key on Linux", b.ID)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("registry keys (-want +got):\n%s", d)
	}
}

func TestChromiumLookupOrder(t *testing.T) {
	b, _ := Lookup("chromium")
	var got []string
	for _, k := range winLookupOrder(b) {
		got = append(got, string(k.root)+`\`+k.key)
	}
	const s = `\NativeMessagingHosts\com.gnosis.host`
	want := []string{`HKCU\Software\Google\Chrome` + s, `HKCU\Software\Chromium` + s, `HKLM\Software\Google\Chrome` + s, `HKLM\Software\Chromium` + s}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Chromium lookup order (-want +got):\n%s", d)
	}
}

func TestEdgeLookupOrder(t *testing.T) {
	b, _ := Lookup("edge")
	var got []string
	for _, k := range winLookupOrder(b) {
		got = append(got, string(k.root)+`\`+k.key)
	}
	const s = `\NativeMessagingHosts\com.gnosis.host`
	want := []string{
		`HKCU\Software\Microsoft\Edge` + s, `HKCU\Software\Chromium` + s, `HKCU\Software\Google\Chrome` + s,
		`HKLM\Software\WOW6432Node\Microsoft\Edge` + s, `HKLM\Software\WOW6432Node\Chromium` + s, `HKLM\Software\WOW6432Node\Google\Chrome` + s,
		`HKLM\Software\Microsoft\Edge` + s, `HKLM\Software\Chromium` + s, `HKLM\Software\Google\Chrome` + s,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Edge lookup order (-want +got):\n%s", d)
	}
}

func TestInstallDirs(t *testing.T) {
	tests := []struct {
		env               Env
		dir, bin, dataDir string
	}{
		{linuxEnv, "/home/ada/.local/share/gnosis", "/home/ada/.local/share/gnosis/gnosis-host", "/home/ada/.config/google-chrome"},
		{darwinEnv, "/Users/ada/Library/Application Support/Gnosis", "/Users/ada/Library/Application Support/Gnosis/gnosis-host",
			"/Users/ada/Library/Application Support/Google/Chrome"},
		{winEnv, `C:\Users\ada\AppData\Local\Gnosis`, `C:\Users\ada\AppData\Local\Gnosis\gnosis-host.exe`,
			`C:\Users\ada\AppData\Local\Google\Chrome\User Data`},
	}
	chrome, _ := Lookup("chrome")
	for _, tt := range tests {
		got := []string{tt.env.InstallDir(), tt.env.InstalledBinary(), tt.env.DataDir(chrome)}
		if d := cmp.Diff([]string{tt.dir, tt.bin, tt.dataDir}, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.env.GOOS, d)
		}
	}
}

func TestSelect(t *testing.T) {
	tests := []struct {
		env     Env
		list    string
		want    []string
		wantErr bool
	}{
		{linuxEnv, "all", []string{"chrome", "chrome-beta", "chrome-dev", "chrome-canary", "chromium", "edge", "edge-beta", "edge-dev", "brave", "vivaldi", "firefox"}, false},
		{winEnv, "all", IDs("windows"), false},
		{linuxEnv, "Chrome, edge,chrome", []string{"chrome", "edge"}, false},
		{linuxEnv, "edge-canary", nil, true},
		{linuxEnv, "firefox", []string{"firefox"}, false},
		{darwinEnv, "Firefox", []string{"firefox"}, false},
		{winEnv, "firefox", []string{"firefox"}, false},
		{linuxEnv, "safari", nil, true},
	}
	for _, tt := range tests {
		bs, err := tt.env.Select(tt.list, nil, nil)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s %q: err %v, want error %v", tt.env.GOOS, tt.list, err, tt.wantErr)
			continue
		}
		var got []string
		for _, b := range bs {
			got = append(got, b.ID)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s %q (-want +got):\n%s", tt.env.GOOS, tt.list, d)
		}
	}
}

// Firefox's data folder and run marker differ from Chromium's: it has run
// once profiles.ini exists in ~/.mozilla/firefox (Linux) or
// ~/Library/Application Support/Firefox (macOS).
func TestFirefoxDataDirAndMarker(t *testing.T) {
	firefox, _ := Lookup("firefox")
	got := []string{linuxEnv.DataDir(firefox), darwinEnv.DataDir(firefox), firefox.Family.Marker}
	want := []string{"/home/ada/.mozilla/firefox", "/Users/ada/Library/Application Support/Firefox", "profiles.ini"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("data folders, marker (-want +got):\n%s", d)
	}
}

func TestFirefoxLookupOrder(t *testing.T) {
	b, _ := Lookup("firefox")
	var got []string
	for _, k := range winLookupOrder(b) {
		got = append(got, string(k.root)+`\`+k.key)
	}
	const s = `\NativeMessagingHosts\com.gnosis.host`
	want := []string{`HKCU\Software\Mozilla` + s, `HKLM\Software\Mozilla` + s}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Firefox lookup order (-want +got):\n%s", d)
	}
}

func TestFlatpakAndSnapDirs(t *testing.T) {
	b, _ := Lookup("chromium")
	want := []string{"/home/ada/.var/app/org.chromium.Chromium", "/home/ada/snap/chromium"}
	if d := cmp.Diff(want, linuxEnv.SandboxDirs(b)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// A system root puts every system-wide folder under it, and only those: a
// staging tree for --system, and what keeps tests off the machine's own
// registrations.
func TestSystemRootHoldsTheSystemWideFolders(t *testing.T) {
	e := Env{GOOS: "linux", Home: "/home/ann", ConfigHome: "/home/ann/.config", SystemRoot: "/tmp/root"}
	chrome, _ := Lookup("chrome")
	for s, want := range map[Scope]string{
		System: "/tmp/root/etc/opt/chrome/native-messaging-hosts/com.gnosis.host.json",
		User:   "/home/ann/.config/google-chrome/NativeMessagingHosts/com.gnosis.host.json",
	} {
		if got, err := e.ManifestPath(chrome, s); err != nil || got != want {
			t.Errorf("scope %d: %q, %v; want %q", s, got, err, want)
		}
	}
	e.SystemRoot = ""
	if got, _ := e.ManifestPath(chrome, System); got != "/etc/opt/chrome/native-messaging-hosts/com.gnosis.host.json" {
		t.Errorf("no system root: %q", got)
	}
}

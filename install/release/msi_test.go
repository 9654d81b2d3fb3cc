package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/prereq"
	"github.com/google/go-cmp/cmp"
)

// The MSI writes every browser's key from the registration table, each once,
// naming its family's manifest: Chrome's key (also read by Chrome's
// channels, Chromium, Brave and Vivaldi), Chromium's, Edge's (all its
// channels) and Firefox's.
func TestMSIKeysComeFromTheBrowserTable(t *testing.T) {
	got, err := msiKeys()
	if err != nil {
		t.Fatal(err)
	}
	const suffix = `\NativeMessagingHosts\com.gnosis.host`
	want := []msiKey{
		{`Software\Google\Chrome` + suffix, "com.gnosis.host.json"},
		{`Software\Chromium` + suffix, "com.gnosis.host.json"},
		{`Software\Microsoft\Edge` + suffix, "com.gnosis.host.json"},
		{`Software\Mozilla` + suffix, "com.gnosis.host.firefox.json"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("MSI keys (-want +got):\n%s", d)
	}
}

// msiTable exports one table of an MSI as rows of tab-separated fields.
func msiTable(t *testing.T, msiinfo, msi, table string) [][]string {
	t.Helper()
	out, err := exec.Command(msiinfo, "export", msi, table).CombinedOutput()
	if err != nil {
		t.Fatalf("msiinfo export %s: %v\n%s", table, err, out)
	}
	var rows [][]string
	for i, line := range strings.Split(strings.ReplaceAll(string(out), "\r\n", "\n"), "\n") {
		if i >= 3 && line != "" { // column names, types, table name
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	return rows
}

// The built database: a per-user x64 package whose one component holds the
// host, its manifests and the keys; the Munim custom action runs the
// installed host, as the user, only when MUNIM is given and not on removal;
// what the host leaves in the folder goes on removal, with the folder.
func TestMSIIsAPerUserPackageOfTheHost(t *testing.T) {
	prereq.Command(t, prereq.Setup+" (apt-get install wixl)", "wixl")
	prereq.Command(t, prereq.Setup+" (apt-get install msitools)", "msibuild")
	msiinfo := prereq.Command(t, prereq.Setup+" (apt-get install msitools)", "msiinfo")
	dir := t.TempDir()
	exe := filepath.Join(dir, "host.exe")
	os.WriteFile(exe, []byte("MZ not really a program"), 0o755)
	msi := filepath.Join(dir, "gnosis.msi")
	if err := buildMSI(msi, "1.2.3", "amd64", exe, filepath.Join(dir, "work"), legal{licence: []byte("the licence"), notices: []byte("the notices")}); err != nil {
		t.Fatal(err)
	}
	sum, err := exec.Command(msiinfo, "suminfo", msi).CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Template: x64;1033", "Source: 10 (a)", "Version: 500"} { // 10: compressed, no elevation
		if !strings.Contains(string(sum), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	props := map[string]string{}
	for _, r := range msiTable(t, msiinfo, msi, "Property") {
		props[r[0]] = r[1]
	}
	for k, v := range map[string]string{"ALLUSERS": "2", "MSIINSTALLPERUSER": "1", "ProductVersion": "1.2.3",
		"UpgradeCode": "{" + msiUpgradeCode + "}", "ProductCode": "{" + nameGUID("gnosis-host msi product 1.2.3 amd64") + "}"} {
		if props[k] != v {
			t.Errorf("property %s = %q, want %q", k, props[k], v)
		}
	}
	var keys []string
	for _, r := range msiTable(t, msiinfo, msi, "Registry") {
		if r[1] != "1" { // 1: HKCU
			t.Errorf("registry row outside HKCU: %v", r)
		}
		if r[3] != "" {
			r[2] += `\` + r[3]
		}
		keys = append(keys, r[2]+" = "+r[4])
	}
	wantKeys := []string{`Software\Gnosis\Installed = 1.2.3`, `Software\Gnosis\Munim = [MUNIM]`}
	mk, _ := msiKeys()
	for _, k := range mk {
		wantKeys = append(wantKeys, k.Key+" = [INSTALLDIR]"+k.Manifest)
	}
	if d := cmp.Diff(wantKeys, keys); d != "" {
		t.Errorf("registry (-want +got):\n%s", d)
	}
	var files []string
	for _, r := range msiTable(t, msiinfo, msi, "File") {
		files = append(files, r[2])
	}
	if d := cmp.Diff([]string{"gnosis-host.exe", "LICENSE.txt", "THIRD_PARTY_NOTICES.txt", "com.gnosis.host.json", "com.gnosis.host.firefox.json"}, files); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	var dirs []string
	for _, r := range msiTable(t, msiinfo, msi, "Directory") {
		dirs = append(dirs, r[0]+"<"+r[1])
	}
	if !contains(dirs, "INSTALLDIR<LocalAppDataFolder") {
		t.Errorf("the install folder is not under LocalAppDataFolder: %v", dirs)
	}
	removed := []string{}
	for _, r := range msiTable(t, msiinfo, msi, "RemoveFile") {
		removed = append(removed, r[2]+"@"+r[3]+"/"+r[4])
	}
	if d := cmp.Diff([]string{"@INSTALLDIR/2", "gnosis-host.log@INSTALLDIR/2", "gnosis-host.log.1@INSTALLDIR/2",
		"install-record.json@INSTALLDIR/2", "gnosis-host.exe.old@INSTALLDIR/2"}, removed); d != "" {
		t.Errorf("removed on uninstall (-want +got):\n%s", d)
	}
	// 1042 = 18 (run an installed file) + 1024 (deferred); no 2048 (as the
	// user). The path is not on its command line: the host reads it from
	// the registry value above.
	if d := cmp.Diff([][]string{{"SetMunim", "1042", "HostExe", `install --browsers all --munim-from-msi`, ""}}, msiTable(t, msiinfo, msi, "CustomAction")); d != "" {
		t.Errorf("custom action (-want +got):\n%s", d)
	}
	sequence := map[string]string{}
	for _, r := range msiTable(t, msiinfo, msi, "InstallExecuteSequence") {
		sequence[r[0]] = r[1]
	}
	if sequence["SetMunim"] != "MUNIM AND NOT REMOVE" {
		t.Errorf("SetMunim runs when %q", sequence["SetMunim"])
	}
}

func TestMSIOnlyForArchitecturesWixlBuilds(t *testing.T) {
	if _, err := writeWXS(t.TempDir(), "1.2.3", "arm64", "x.exe", legal{}); err == nil {
		t.Error("an arm64 MSI was accepted; wixl 0.101 builds x86 and x64 only")
	}
}

func TestNameGUIDIsAStableVersion5UUID(t *testing.T) {
	a, b := nameGUID("gnosis 1.2.3"), nameGUID("gnosis 1.2.4")
	if a != nameGUID("gnosis 1.2.3") || a == b || len(a) != 36 || a[14] != '5' || !strings.ContainsAny(a[19:20], "89AB") {
		t.Errorf("nameGUID: %s %s", a, b)
	}
}

package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/host/register"
	"github.com/gnosis/gnosis/internal/prereq"
	"github.com/google/go-cmp/cmp"
)

// linuxSystemManifests are the system-wide manifest files of the packages:
// Chrome's folder (read by its channels and Brave), Chromium's, Edge's,
// Vivaldi's and Firefox's.
var linuxSystemManifests = []string{
	"/etc/opt/chrome/native-messaging-hosts/com.gnosis.host.json",
	"/etc/chromium/native-messaging-hosts/com.gnosis.host.json",
	"/etc/opt/edge/native-messaging-hosts/com.gnosis.host.json",
	"/etc/opt/vivaldi/native-messaging-hosts/com.gnosis.host.json",
	"/usr/lib/mozilla/native-messaging-hosts/com.gnosis.host.json",
}

func TestLinuxManifestsComeFromTheBrowserTable(t *testing.T) {
	got, family, err := linuxManifests()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(linuxSystemManifests, got); d != "" {
		t.Errorf("system manifests (-want +got):\n%s", d)
	}
	if family[linuxSystemManifests[4]].ID != register.Firefox.ID || family[linuxSystemManifests[0]].ID != register.Chromium.ID {
		t.Errorf("families: %v", family)
	}
}

// linuxPackageTool installs and removes one kind of package inside a
// folder used as the root of a machine.
type linuxPackageTool struct {
	kind            string
	tool            string // the command that must exist
	list            func(t *testing.T, pkg string) []string
	install, remove func(root, pkg string) *exec.Cmd
	setUp           func(t *testing.T, root string)
}

var linuxPackageTools = []linuxPackageTool{
	{
		kind: "deb", tool: "dpkg",
		list: func(t *testing.T, pkg string) []string {
			lines := mustRun(t, exec.Command("sh", "-c", `dpkg-deb --fsys-tarfile "$1" | tar -t`, "-", pkg), "")
			var files []string
			for _, l := range strings.Split(lines, "\n") {
				if l != "" && !strings.HasSuffix(l, "/") {
					files = append(files, strings.TrimPrefix(l, "."))
				}
			}
			return files
		},
		setUp: func(t *testing.T, root string) {
			for _, d := range []string{"var/lib/dpkg/info", "var/lib/dpkg/updates"} {
				os.MkdirAll(filepath.Join(root, d), 0o755)
			}
			os.WriteFile(filepath.Join(root, "var/lib/dpkg/status"), nil, 0o644)
		},
		install: func(root, pkg string) *exec.Cmd { return exec.Command("dpkg", "--root="+root, "-i", pkg) },
		remove: func(root, _ string) *exec.Cmd {
			return exec.Command("dpkg", "--root="+root, "-r", register.PackageName)
		},
	},
	{
		kind: "rpm", tool: "rpm",
		list: func(t *testing.T, pkg string) []string {
			// A private database: a query must not create ~/.rpmdb.
			out := mustRun(t, exec.Command("rpm", "--dbpath", t.TempDir(), "-qlvp", pkg), "")
			var files []string
			for _, l := range strings.Split(out, "\n") {
				if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(f[0], "d") {
					p := f[len(f)-1]
					if f[0][0] == 'l' {
						p = f[len(f)-3]
					}
					files = append(files, p)
				}
			}
			return files
		},
		setUp: func(t *testing.T, root string) {},
		install: func(root, pkg string) *exec.Cmd {
			return exec.Command("rpm", "--root", root, "--dbpath", "/var/lib/rpm", "-i", "--nodeps", pkg)
		},
		remove: func(root, _ string) *exec.Cmd {
			return exec.Command("rpm", "--root", root, "--dbpath", "/var/lib/rpm", "-e", register.PackageName)
		},
	},
}

// mustRun runs cmd and returns its output; a failure ends the test.
func mustRun(t *testing.T, cmd *exec.Cmd, what string) string {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s%s: %v\n%s", what, strings.Join(cmd.Args, " "), err, out)
	}
	return string(out)
}

// A .deb and an .rpm install the host for every user, register it with
// every browser's system-wide folder, and take all of it away again.
//
// The packages install into a temporary folder used as the root of a
// machine (dpkg --root, rpm --root) and the host runs there through chroot
// (it is a static binary), never into this machine's /etc and /usr: make
// test runs the Chromium and Firefox suites and other doctor tests at the
// same time, and browsers and doctor read the real system-wide manifest
// folders, where a registration would change what they find. The package
// databases are the temporary root's too, so apt and dpkg on this machine
// see nothing.
func TestLinuxPackagesInstallRegisterAndRemove(t *testing.T) {
	slow(t)
	if os.Geteuid() != 0 {
		prereq.Missing(t, "root (dpkg --root, rpm --root and chroot)", "run the tests as root, as CI does")
	}
	chroot := prereq.Command(t, prereq.Setup, "chroot", "/usr/sbin/chroot")
	t.Chdir("../..")
	work := t.TempDir()
	bin := filepath.Join(work, "gnosis-host")
	if err := buildHost("linux", runtime.GOARCH, testVersion, bin); err != nil {
		t.Fatal(err)
	}
	lg, err := hostLegal(bin, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := append([]string{register.PackageBinary, LinuxCommand, DocDir + "/LICENSE", DocDir + "/" + NoticesFile}, linuxSystemManifests...)
	for _, tool := range linuxPackageTools {
		t.Run(tool.kind, func(t *testing.T) {
			prereq.Command(t, prereq.Setup+" (apt-get install dpkg rpm)", tool.tool)
			pkg := filepath.Join(work, hostFile(testVersion, "linux", runtime.GOARCH, tool.kind))
			if err := buildLinuxPackage(pkg, tool.kind, testVersion, runtime.GOARCH, bin, filepath.Join(work, tool.kind), lg); err != nil {
				t.Fatal(err)
			}
			got := tool.list(t, pkg)
			sort.Strings(got)
			wantFiles := append([]string{}, wantFiles...)
			if tool.kind == "deb" {
				wantFiles = append(wantFiles, DocDir+"/copyright")
			}
			sort.Strings(wantFiles)
			if d := cmp.Diff(wantFiles, got); d != "" {
				t.Errorf("%s file list (-want +got):\n%s", tool.kind, d)
			}

			root := t.TempDir()
			tool.setUp(t, root)
			mustRun(t, tool.install(root, pkg), "install: ")
			inRoot := func(args ...string) (string, error) {
				cmd := exec.Command(chroot, append([]string{root}, args...)...)
				cmd.Env = []string{"HOME=/root", "PATH=/usr/bin:/bin"}
				out, err := cmd.CombinedOutput()
				return string(out), err
			}
			if out, err := inRoot(LinuxCommand, "version"); err != nil || !strings.Contains(out, testVersion) {
				t.Errorf("gnosis-host version: %v\n%s", err, out)
			}
			out, err := inRoot(LinuxCommand, "doctor")
			if err != nil {
				t.Errorf("doctor: %v\n%s", err, out)
			}
			for _, b := range register.Browsers {
				if !b.Supported("linux") {
					continue
				}
				row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(b.ID) + `\s+registered\s+ok\s+` + regexp.QuoteMeta(filepath.Join(b.LinuxSystem, register.ManifestFile)) + ` \(system-wide, for every user\)$`)
				if !row.MatchString(out) {
					t.Errorf("doctor has no system-wide registration row for %s:\n%s", b.ID, out)
				}
			}
			for _, want := range []string{`chrome\s+host binary\s+ok\s+` + register.PackageBinary, `chrome\s+self-test\s+ok\s+the host answers`, `firefox\s+self-test\s+ok\s+the host answers`} {
				if !regexp.MustCompile(want).MatchString(out) {
					t.Errorf("doctor lacks %s:\n%s", want, out)
				}
			}
			// A person's uninstall leaves the package's files to the package manager.
			out, err = inRoot(LinuxCommand, "uninstall")
			if err != nil || !strings.Contains(out, "left "+linuxSystemManifests[0]+": the gnosis-host package installed it") {
				t.Errorf("uninstall on a packaged host: %v\n%s", err, out)
			}
			if _, err := os.Stat(filepath.Join(root, linuxSystemManifests[0])); err != nil {
				t.Errorf("uninstall removed the package's manifest: %v", err)
			}

			mustRun(t, tool.remove(root, pkg), "remove: ")
			var left []string
			filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				rel := strings.TrimPrefix(p, root)
				switch {
				case err != nil || rel == "":
				case rel == "/var" || rel == "/root" || rel == "/tmp": // the databases; the home the host logged into
					return filepath.SkipDir
				case !d.IsDir() || !standardDirs[rel]:
					left = append(left, rel)
				}
				return nil
			})
			if len(left) > 0 {
				t.Errorf("left after removing the %s: %v", tool.kind, left)
			}
		})
	}
}

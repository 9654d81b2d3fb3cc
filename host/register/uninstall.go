package register

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
)

// Uninstall removes what Install wrote, as listed in the install record:
// the manifests, the registry keys (only while they still name our
// manifest) and the parent keys install created (only when empty), the
// configuration file if install created it, the binary, the record and the
// install folder if it is then empty. Without a record (a registration made
// by the scripts) it removes our manifest from every browser's folder and
// our keys from the registry, found through the table.
func Uninstall(o Options) ([]Action, error) {
	u := &uninstaller{Options: o, out: o.Out}
	if u.out == nil {
		u.out = io.Discard
	}
	rec, err := readRecord(o.Env.RecordFile())
	if err != nil {
		return nil, err
	}
	var fromPackage []string
	if rec.Binary == "" && len(rec.Files) == 0 && len(rec.Keys) == 0 {
		rec, fromPackage = o.Env.scan(o.Registry)
		rec.Binary = o.Env.InstalledBinary()
	}
	u.rec = rec
	for _, f := range fromPackage {
		u.say("left %s: the %s package installed it; remove that package to remove it (sudo apt remove %[2]s, or sudo dnf remove %[2]s)", f, PackageName)
	}
	u.removeKeys()
	u.removeParentKeys()
	u.removeFiles()
	u.removeDirs()
	return u.acts, errors.Join(u.errs...)
}

// uninstaller is one run of Uninstall: the record it follows, the actions
// reported and the errors met (it goes on past each one).
type uninstaller struct {
	Options
	out  io.Writer
	rec  Record
	acts []Action
	errs []error
}

func (u *uninstaller) say(format string, args ...any) {
	a := Action{What: fmt.Sprintf(format, args...)}
	u.acts = append(u.acts, a)
	fmt.Fprintf(u.out, "  %s\n", a.What)
}

// removeKeys deletes the recorded registry keys that still name our manifest.
func (u *uninstaller) removeKeys() {
	for _, k := range u.rec.Keys {
		root, key, _ := strings.Cut(k, `\`)
		if u.Registry == nil {
			u.errs = append(u.errs, fmt.Errorf("remove %s: %w", k, ErrNoRegistry))
			continue
		}
		v, err := u.Registry.Get(Root(root), key)
		if errors.Is(err, ErrNoKey) {
			continue
		}
		if err == nil && !u.Env.ours(v) {
			u.say("left %s: it now names %s, not ours", k, v)
			continue
		}
		if u.DryRun {
			u.say("would remove %s", k)
			continue
		}
		if err := u.Registry.Delete(Root(root), key); err != nil && !errors.Is(err, ErrNoKey) {
			u.errs = append(u.errs, err)
			continue
		}
		u.say("removed %s", k)
	}
}

// removeParentKeys deletes, deepest first, the parent keys install created
// that are now empty; a key holding anything (a browser installed since, a
// key we left because it names another manifest) stays.
func (u *uninstaller) removeParentKeys() {
	if u.Registry == nil || u.DryRun {
		return
	}
	keys := append([]string{}, u.rec.ParentKeys...)
	sort.Sort(sort.Reverse(sort.StringSlice(keys)))
	for _, k := range keys {
		root, key, _ := strings.Cut(k, `\`)
		if !emptyKey(u.Registry, Root(root), key) {
			continue
		}
		if err := u.Registry.Delete(Root(root), key); err != nil && !errors.Is(err, ErrNoKey) {
			u.errs = append(u.errs, err)
			continue
		}
		u.say("removed %s", k)
	}
}

// removeFiles deletes the recorded files, the binary, the record, and what
// the host itself leaves in the install folder.
func (u *uninstaller) removeFiles() {
	e := u.Env
	files := append([]string{}, u.rec.Files...)
	if u.rec.Config != "" {
		files = append(files, u.rec.Config)
	}
	files = append(files, u.rec.Binary, e.RecordFile())
	// On Windows the host's log (in the user cache folder, %LOCALAPPDATA%\gnosis)
	// lands in the install folder, whose name differs only in case; and a
	// binary replaced while running was moved aside to .old.
	for _, log := range []string{"gnosis-host.log", "gnosis-host.log.1", e.BinaryName() + ".old"} {
		files = append(files, join(e.GOOS, e.InstallDir(), log))
	}
	for _, f := range files {
		if f == "" {
			continue
		}
		if _, err := os.Lstat(f); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if u.DryRun {
			u.say("would remove %s", f)
			continue
		}
		if err := os.Remove(f); err != nil {
			if self, _ := os.Executable(); f == u.rec.Binary && sameFile(self, f) {
				// Windows cannot delete a running program.
				u.say("could not remove %s while it runs; delete it once this program has exited", f)
				continue
			}
			u.errs = append(u.errs, fmt.Errorf("remove %s: %w", f, err))
			continue
		}
		u.say("removed %s", f)
	}
}

// removeDirs deletes, deepest first, the folders install created and the
// install folder; one that is not empty (a browser profile, a file someone
// else put there) stays.
func (u *uninstaller) removeDirs() {
	if u.DryRun {
		return
	}
	dirs := union(u.rec.Dirs, []string{u.Env.InstallDir()})
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		if err := os.Remove(d); err == nil {
			u.say("removed %s", d)
		}
	}
}

// scan finds our registration through the table, for uninstalling what the
// scripts wrote: every manifest file named com.gnosis.host.json whose name
// field is ours, and every registry key naming our manifest. The system-wide
// manifests of the Linux packages are the package manager's: scan lists
// them apart, in fromPackage.
func (e Env) scan(reg Registry) (r Record, fromPackage []string) {
	for _, b := range Browsers {
		if !b.Supported(e.GOOS) {
			continue
		}
		for _, s := range []Scope{User, System} {
			p, err := e.ManifestPath(b, s)
			if err != nil {
				continue
			}
			if data, err := os.ReadFile(p); err == nil {
				if m, err := ParseManifest(data); err == nil && m.Name == HostName {
					if packaged(m, s) {
						fromPackage = union(fromPackage, []string{p})
					} else {
						r.Files = union(r.Files, []string{p})
					}
				}
			}
			if e.GOOS == "windows" && reg != nil {
				keys, _ := e.RegistryKeys(b)
				for _, key := range keys {
					if _, err := reg.Get(RootFor(s), key); err == nil {
						r.Keys = union(r.Keys, []string{string(RootFor(s)) + `\` + key})
					}
				}
			}
		}
	}
	return r, fromPackage
}

// ours reports whether a registry value names one of our manifests.
func (e Env) ours(v string) bool {
	for _, m := range e.OurManifests() {
		if strings.EqualFold(v, m) {
			return true
		}
	}
	return false
}

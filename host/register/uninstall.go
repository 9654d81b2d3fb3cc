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
// manifest), the configuration file if install created it, the binary, the
// record and the install folder if it is then empty. Without a record (a
// registration made by the scripts) it removes our manifest from every
// browser's folder and our keys from the registry, found through the table.
func Uninstall(o Options) ([]Action, error) {
	e := o.Env
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	var acts []Action
	say := func(format string, args ...any) {
		a := Action{What: fmt.Sprintf(format, args...)}
		acts = append(acts, a)
		fmt.Fprintf(out, "  %s\n", a.What)
	}
	rec, err := readRecord(e.RecordFile())
	if err != nil {
		return nil, err
	}
	if rec.Binary == "" && len(rec.Files) == 0 && len(rec.Keys) == 0 {
		rec = e.scan(o.Registry)
		rec.Binary = e.InstalledBinary()
	}
	var errs []error
	for _, k := range rec.Keys {
		root, key, _ := strings.Cut(k, `\`)
		if o.Registry == nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", k, ErrNoRegistry))
			continue
		}
		v, err := o.Registry.Get(Root(root), key)
		if errors.Is(err, ErrNoKey) {
			continue
		}
		if err == nil && !e.ours(v) {
			say("left %s: it now names %s, not ours", k, v)
			continue
		}
		if o.DryRun {
			say("would remove %s", k)
			continue
		}
		if err := o.Registry.Delete(Root(root), key); err != nil && !errors.Is(err, ErrNoKey) {
			errs = append(errs, err)
			continue
		}
		say("removed %s", k)
	}
	files := append([]string{}, rec.Files...)
	if rec.Config != "" {
		files = append(files, rec.Config)
	}
	files = append(files, rec.Binary, e.RecordFile())
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
		if o.DryRun {
			say("would remove %s", f)
			continue
		}
		if err := os.Remove(f); err != nil {
			if self, _ := os.Executable(); f == rec.Binary && sameFile(self, f) {
				// Windows cannot delete a running program.
				say("could not remove %s while it runs; delete it once this program has exited", f)
				continue
			}
			errs = append(errs, fmt.Errorf("remove %s: %w", f, err))
			continue
		}
		say("removed %s", f)
	}
	if !o.DryRun {
		// Deepest first; a folder that is not empty (a browser profile, a
		// file someone else put there) stays.
		dirs := union(rec.Dirs, []string{e.InstallDir()})
		sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
		for _, d := range dirs {
			if err := os.Remove(d); err == nil {
				say("removed %s", d)
			}
		}
	}
	return acts, errors.Join(errs...)
}

// scan finds our registration through the table, for uninstalling what the
// scripts wrote: every manifest file named com.gnosis.host.json whose name
// field is ours, and every registry key naming our manifest.
func (e Env) scan(reg Registry) Record {
	var r Record
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
					r.Files = union(r.Files, []string{p})
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
	return r
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

package register

// The doctor's checks of one browser: its registration (a manifest file,
// or registry keys on Windows), the manifest, the host binary it names and
// a self-test of that binary as the browser would start it.

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gnosis/gnosis/host/shellquote"
)

// browser checks one browser. named means the user asked for it, so "not
// registered" fails even if the browser is not installed.
func (d *doctor) browser(b Browser, named bool) {
	e := d.Env
	found := e.Found(b, d.Registry, d.LookPath)
	for _, dir := range e.SandboxDirs(b) {
		if _, err := os.Stat(dir); err == nil {
			d.add(b.ID, "sandbox", Warn, "%s exists: a Flatpak/Snap %s cannot see host manifests in the usual folders; use the distribution's package instead", dir, b.Name)
		}
	}
	mpath, where, ok := d.registration(b)
	if !ok {
		if !found && !named {
			d.skipped = append(d.skipped, b.ID)
			d.flush()
			return
		}
		d.add(b.ID, "registered", Fail, "not installed for %s: %s (%s); run: %s install --browsers %s", b.Name, where, d.says(b, FaultNotRegistered), d.command(), b.ID)
		d.flush()
		return
	}
	d.add(b.ID, "registered", OK, "%s", where)
	d.flush()
	m, ok := d.manifest(b, mpath)
	if !ok {
		return
	}
	bin, ok := d.hostBinary(b, mpath, m)
	if ok && d.SelfTest {
		d.selfTest(b, bin, mpath)
	}
}

// manifest checks the manifest at mpath that browser b reads; ok is false
// when it cannot be read or parsed.
func (d *doctor) manifest(b Browser, mpath string) (m Manifest, ok bool) {
	reinstall := fmt.Sprintf("%s install --browsers %s", d.command(), b.ID)
	data, err := os.ReadFile(mpath)
	if err != nil {
		d.add(b.ID, "manifest", Fail, "%s: %v (%s); run: %s", mpath, err, d.says(b, FaultBadManifest), reinstall)
		return m, false
	}
	m, err = ParseManifest(data)
	if err != nil {
		d.add(b.ID, "manifest", Fail, "%s: %v (%s); run: %s", mpath, err, d.says(b, FaultBadManifest), reinstall)
		return m, false
	}
	problems := m.Check(d.Env.GOOS, b.Family)
	for _, p := range problems {
		if p.Harmless {
			d.add(b.ID, "manifest "+p.Field, Warn, "%s", p.Msg)
			continue
		}
		fix := reinstall
		if p.Fault.ID == FaultNotAllowed.ID {
			fix += fmt.Sprintf(" --extension-id <id> (the id %s shows for your Gnosis extension)", b.Family.ExtensionsPage)
		}
		d.add(b.ID, "manifest "+p.Field, Fail, "%s (%s); run: %s", p.Msg, d.says(b, p.Fault), fix)
	}
	if len(problems) == 0 {
		d.add(b.ID, "manifest", OK, "%s: name, type and %d %s well-formed", mpath, len(m.Entries(b.Family)), b.Family.Field)
	}
	return m, true
}

// hostBinary checks the program manifest m names (relative to the
// manifest's folder on Windows); ok is true when the browser can start it.
func (d *doctor) hostBinary(b Browser, mpath string, m Manifest) (bin string, ok bool) {
	goos := d.Env.GOOS
	bin = manifestBinary(goos, mpath, m.Path)
	if bin == "" {
		return "", false
	}
	st, err := os.Stat(bin)
	switch {
	case errors.Is(err, os.ErrNotExist):
		d.add(b.ID, "host binary", Fail, "registered, but the program the manifest names is gone (moved or deleted): %s (%s); run: %s install",
			bin, d.says(b, FaultBinaryGone), d.command())
		return "", false
	case err != nil:
		d.add(b.ID, "host binary", Fail, "%s: %v (%s); run: %s install", bin, errors.Unwrap(err), d.says(b, FaultCannotStart), d.command())
		return "", false
	case st.IsDir():
		d.add(b.ID, "host binary", Fail, "%s is a folder (%s); run: %s install --browsers %s", bin, d.says(b, FaultCannotStart), d.command(), b.ID)
		return "", false
	case !executable(goos, bin, st):
		d.add(b.ID, "host binary", Fail, "%s is not executable (%s); run: chmod +x %s", bin, d.says(b, FaultCannotStart), shellquote.Arg(goos, bin))
		return "", false
	}
	d.add(b.ID, "host binary", OK, "%s", bin)
	return bin, true
}

// selfTest starts bin as browser b would and asks for its health. A host is
// started once per family: Firefox launches it differently, and the host
// trusts each launch on its own terms.
func (d *doctor) selfTest(b Browser, bin, mpath string) {
	key := bin + "\x00" + b.Family.ID
	if d.tested[key] {
		d.add(b.ID, "self-test", OK, "same host as above")
		return
	}
	d.tested[key] = true
	h, err := SelfTest(bin, b.Family.LaunchArgs(d.Env.GOOS, mpath), d.Timeout, d.settleTime())
	switch {
	case err != nil:
		d.add(b.ID, "self-test", Fail, "%s: %v%s; %s", bin, err, d.saysFor(b, err), selfTestFix(err, d.command(), b.ID))
	case h.Status != "ok":
		d.add(b.ID, "self-test", OK, "the host answers; health %s, %d capabilities: %s", h.Status, h.Capabilities, degradedReason(h))
	default:
		d.add(b.ID, "self-test", OK, "health ok, %d capabilities", h.Capabilities)
	}
	if err == nil && d.health == nil {
		d.health = &h
	}
	if err == nil && d.Version != "" && h.Version != "" && h.Version != d.Version {
		d.add(b.ID, "host version", Warn, "%s is version %s, this command (%s) is %s: to put this one in its place, run: %s install",
			bin, h.Version, d.Self, d.Version, shellquote.Arg(d.Env.GOOS, d.Self))
	}
}

// registration finds the manifest browser b would read. It returns a
// description of where it looked or what it found.
func (d *doctor) registration(b Browser) (mpath, where string, ok bool) {
	e := d.Env
	if e.GOOS != "windows" {
		var tried []string
		for _, s := range []Scope{User, System} {
			p, err := e.ManifestPath(b, s)
			if err != nil {
				continue
			}
			if _, err := os.Stat(p); err == nil {
				if s == System {
					return p, p + " (system-wide, for every user)", true
				}
				return p, p, true
			}
			tried = append(tried, p)
		}
		return "", "no manifest at " + strings.Join(tried, " or "), false
	}
	if d.Registry == nil {
		return "", ErrNoRegistry.Error(), false
	}
	var tried []string
	for _, k := range winLookupOrder(b) {
		v, err := d.Registry.Get(k.root, k.key)
		if err != nil {
			tried = append(tried, string(k.root)+`\`+k.key)
			continue
		}
		full := string(k.root) + `\` + k.key
		where := full + " = " + v
		if b.WinKey == winEdge {
			d.edgeOrder(b, k, v)
		}
		want, _ := e.ManifestPath(b, User)
		notFound := d.says(b, FaultNotRegistered)
		if v == "" {
			d.addLater(b.ID, "registry value", Fail, "%s has an empty default value; it must be the manifest's path (%s); run: %s install --browsers %s", full, notFound, d.command(), b.ID)
			return "", where, false
		}
		if _, err := os.Stat(v); err != nil {
			d.addLater(b.ID, "registry value", Fail, "%s names %s, which does not exist (%s); install wrote %s; run: %s install --browsers %s", full, v, notFound, want, d.command(), b.ID)
			return "", where, false
		}
		if !strings.EqualFold(v, want) {
			d.addLater(b.ID, "registry value", Warn, "%s names %s, not the installed manifest %s", full, v, want)
		} else {
			d.addLater(b.ID, "registry value", OK, "matches the installed manifest")
		}
		return v, where, true
	}
	return "", "no key " + strings.Join(tried, ", "), false
}

// edgeOrder warns when Edge's first key hides a later one that names a
// different manifest: Edge reads only the first key it finds.
func (d *doctor) edgeOrder(b Browser, first regKey, value string) {
	full := string(first.root) + `\` + first.key
	after := false
	for _, k := range winLookupOrder(b) {
		if k == first {
			after = true
			continue
		}
		if !after {
			continue
		}
		if v, err := d.Registry.Get(k.root, k.key); err == nil && !strings.EqualFold(v, value) {
			d.addLater(b.ID, "edge key order", Warn, "Edge reads only the first key it finds, %s (= %s); %s\\%s (= %s) is ignored", full, value, k.root, k.key, v)
			return
		}
	}
	d.addLater(b.ID, "edge key order", OK, "Edge reads only the first key it finds; that is %s", full)
}

type regKey struct {
	root Root
	key  string
}

// winLookupOrder is the order in which browser b looks for our key on
// Windows: the current user first, then the machine; Edge also tries
// Chromium's and Chrome's keys, and the 32-bit view of the machine's.
func winLookupOrder(b Browser) []regKey {
	bases := []string{b.WinKey}
	if b.WinKeyAlso != "" {
		bases = append(bases, b.WinKeyAlso)
	}
	if b.WinKey == winEdge {
		bases = EdgeKeyOrder
	}
	suffix := `\NativeMessagingHosts\` + HostName
	var out []regKey
	for _, base := range bases {
		out = append(out, regKey{HKCU, base + suffix})
	}
	if b.WinKey == winEdge {
		for _, base := range bases {
			out = append(out, regKey{HKLM, strings.Replace(base, `Software\`, `Software\WOW6432Node\`, 1) + suffix})
		}
	}
	for _, base := range bases {
		out = append(out, regKey{HKLM, base + suffix})
	}
	return out
}

func executable(goos, name string, st os.FileInfo) bool {
	if goos == "windows" {
		ext := strings.ToLower(name[strings.LastIndex(name, ".")+1:])
		return ext == "exe" || ext == "bat" || ext == "cmd"
	}
	return st.Mode().Perm()&0o111 != 0
}

func dirOf(goos, p string) string {
	sep := "/"
	if goos == "windows" {
		p = toSlash(goos, p)
	}
	i := strings.LastIndex(p, sep)
	if i < 0 {
		return p
	}
	return p[:i]
}

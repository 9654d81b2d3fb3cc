package register

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Options says what to install and where. Only Env is required.
type Options struct {
	Env Env
	// Registry is the Windows registry (nil elsewhere).
	Registry Registry
	// Browsers is a --browsers value: "" (found, or all when none is
	// found), "all", or a comma-separated list of ids.
	Browsers string
	Scope    Scope
	// ExtensionIDs are extra extension ids allowed to connect.
	ExtensionIDs []string
	// Munim, when set, becomes the "munim" provider's command, with MunimArgs.
	Munim     string
	MunimArgs []string
	// Source is the binary to copy; "" means the running executable.
	Source string
	DryRun bool
	// Out receives one line per action.
	Out io.Writer
	// LookPath finds browser executables (nil: exec.LookPath).
	LookPath func(string) (string, error)
}

// Action is one thing install did (or, in a dry run, would do) for one browser.
type Action struct {
	Browser string // browser id, or "" for the binary, config and record
	What    string
}

// Install copies the host binary to the install folder, writes its manifest
// and configuration, and registers it with the selected browsers. It is
// idempotent; every write is atomic and read back.
func Install(o Options) ([]Action, error) {
	e := o.Env
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	browsers, err := e.Select(o.Browsers, o.Registry, o.LookPath)
	if err != nil {
		return nil, err
	}
	if len(browsers) == 0 {
		fmt.Fprintln(out, "No supported browser found; registering for all of them, so one installed later finds the host.")
		browsers, _ = e.Select("all", o.Registry, o.LookPath)
	}
	if e.GOOS == "windows" && o.Registry == nil && !o.DryRun {
		return nil, ErrNoRegistry
	}
	bin := e.InstalledBinary()
	manifests := map[string][]byte{} // family id -> its manifest's text
	for _, f := range Families {
		m, err := NewManifest(f, bin, o.ExtensionIDs...)
		if err != nil {
			return nil, err
		}
		manifests[f.ID] = m.Encode()
	}
	var acts []Action
	var rec Record
	created := func(name string) { rec.Dirs = append(rec.Dirs, missingDirs(filepath.Dir(name))...) }
	say := func(browser, format string, args ...any) {
		a := Action{browser, fmt.Sprintf(format, args...)}
		acts = append(acts, a)
		name := browser
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(out, "  %-14s %s\n", name, a.What)
	}
	verb := func(done, dry string) string {
		if o.DryRun {
			return dry
		}
		return done
	}

	// The binary.
	src := o.Source
	if src == "" {
		if src, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("find own executable: %w", err)
		}
	}
	switch {
	case sameFile(src, bin):
		say("", "binary %s already in place", bin)
	case o.DryRun:
		say("", "would copy %s to %s", src, bin)
	default:
		created(bin)
		changed, err := copyFile(src, bin)
		if err != nil {
			return acts, fmt.Errorf("install binary: %w", err)
		}
		if changed {
			say("", "copied %s to %s", src, bin)
		} else {
			say("", "binary %s up to date", bin)
		}
	}
	rec.Binary = bin

	// The configuration. The browser starts the host in the host's folder
	// with a minimal PATH, so the Munim command is made absolute now.
	if o.Munim != "" && !o.DryRun {
		o.Munim = absCommand(o.Munim)
	}
	if o.Munim != "" {
		if !o.DryRun {
			created(e.ConfigFile)
			fresh, err := setProvider(e.ConfigFile, MunimProvider(o.Munim, o.MunimArgs))
			if err != nil {
				return acts, err
			}
			if fresh {
				rec.Config = e.ConfigFile
			}
		}
		say("", "%s provider munim = %s in %s", verb("set", "would set"),
			strings.Join(append([]string{o.Munim}, o.MunimArgs...), " "), e.ConfigFile)
		if why := munimProblem(e.GOOS, o.Munim); why != "" {
			say("", "warning: %s: the host will report munim down until it can start it (then run: gnosis-host doctor)", why)
		}
	}

	// The manifests and each browser's registration.
	written := map[string]string{} // place -> browser id that wrote it
	// writeOnce writes the manifest at mpath for browser id unless an
	// earlier browser did, saying so under who.
	writeOnce := func(id, mpath, who string, data []byte) error {
		if _, ok := written[mpath]; ok {
			return nil
		}
		written[mpath] = id
		if !o.DryRun {
			created(mpath)
		}
		if err := o.writeManifest(mpath, data); err != nil {
			return err
		}
		rec.Files = append(rec.Files, mpath)
		say(who, "%s %s", verb("wrote", "would write"), mpath)
		return nil
	}
	for _, b := range browsers {
		mpath, err := e.ManifestPath(b, o.Scope)
		if err != nil {
			return acts, err
		}
		if e.GOOS != "windows" {
			if by, ok := written[mpath]; ok {
				say(b.ID, "shares %s (written for %s)", mpath, by)
			} else if err := writeOnce(b.ID, mpath, b.ID, manifests[b.Family.ID]); err != nil {
				return acts, err
			}
			continue
		}
		// On Windows browsers may share the manifest; each has its own keys.
		if err := writeOnce(b.ID, mpath, "", manifests[b.Family.ID]); err != nil {
			return acts, err
		}
		keys, _ := e.RegistryKeys(b)
		root := RootFor(o.Scope)
		for _, key := range keys {
			full := string(root) + `\` + key
			note := ""
			if strings.HasPrefix(key, winChrome+`\`) && !strings.HasPrefix(b.ID, "chrome") {
				note = fmt.Sprintf(" (%s reads Chrome's key)", b.Name)
			}
			if by, ok := written[full]; ok {
				say(b.ID, "shares %s (set for %s)%s", full, by, note)
				continue
			}
			written[full] = b.ID
			if !o.DryRun {
				if err := o.Registry.Set(root, key, mpath); err != nil {
					return acts, err
				}
				got, err := o.Registry.Get(root, key)
				if err != nil {
					return acts, fmt.Errorf("read back %s: %w", full, err)
				}
				if got != mpath {
					return acts, fmt.Errorf("read back %s: %q, want %q", full, got, mpath)
				}
			}
			rec.Keys = append(rec.Keys, full)
			say(b.ID, "%s %s = %s%s", verb("set", "would set"), full, mpath, note)
		}
	}

	if o.DryRun {
		return acts, nil
	}
	if link := e.commandLink(); link != "" && o.Scope == User {
		created(link)
		ok, err := linkCommand(link, bin)
		switch {
		case err != nil:
			say("", "could not link %s: %v", link, err)
		case ok:
			rec.Files = append(rec.Files, link)
			say("", "linked %s to %s: you can type gnosis-host", link, bin)
		default:
			say("", "left %s alone: it is not a link to %s", link, bin)
		}
	}
	old, err := readRecord(e.RecordFile())
	if err != nil {
		return acts, err
	}
	if err := old.merge(rec).write(e.RecordFile()); err != nil {
		return acts, fmt.Errorf("write install record: %w", err)
	}
	return acts, nil
}

func (o Options) writeManifest(name string, data []byte) error {
	if o.DryRun {
		return nil
	}
	if err := writeFile(name, data, 0o644); err != nil {
		if errors.Is(err, os.ErrPermission) && o.Scope == System {
			return fmt.Errorf("%w (--system needs administrator rights)", err)
		}
		return err
	}
	return nil
}

// NextStep is what to tell a person after a successful install; command is
// how they run the host (Env.Command).
func NextStep(command string) string {
	return fmt.Sprintf(`Next: open chrome://extensions (edge://extensions, brave://extensions, ...), turn on
Developer mode, click "Load unpacked" and pick the extension folder; in Firefox open
about:debugging#/runtime/this-firefox, click "Load Temporary Add-on..." and pick the Firefox
package (gnosis-firefox.xpi) or the extension's manifest.json. Then open the Gnosis
options page: it should say the host is connected. If not, run: %[1]s doctor
Check the connection from a terminal: %[1]s call capabilities.list`, command)
}

// absCommand makes a command absolute: a path relative to the current
// folder, or a bare name found on PATH. A bare name not found stays as given
// (doctor reports it).
func absCommand(c string) string {
	if filepath.IsAbs(c) {
		return c
	}
	if strings.ContainsAny(c, `/\`) {
		if a, err := filepath.Abs(c); err == nil {
			return a
		}
		return c
	}
	if p, err := exec.LookPath(c); err == nil {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
	}
	return c
}

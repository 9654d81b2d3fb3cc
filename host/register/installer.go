package register

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gnosis/gnosis/host/config"
)

// installer is one run of Install: the browsers chosen, the manifest each
// family reads, and what has been done so far (the actions reported, the
// record uninstall will read, the places already written).
type installer struct {
	Options
	out       io.Writer
	browsers  []Browser
	bin       string            // the installed binary
	manifests map[string][]byte // family id -> its manifest's text
	acts      []Action
	rec       Record
	written   map[string]string // manifest path or full registry key -> browser id that wrote it
}

// newInstaller chooses the browsers and encodes each family's manifest.
func newInstaller(o Options) (*installer, error) {
	in := &installer{Options: o, out: o.Out, written: map[string]string{}}
	if in.out == nil {
		in.out = io.Discard
	}
	if err := in.chooseBrowsers(); err != nil {
		return nil, err
	}
	if o.Env.GOOS == "windows" && o.Registry == nil && !o.DryRun {
		return nil, ErrNoRegistry
	}
	in.bin = o.Env.InstalledBinary()
	in.manifests = map[string][]byte{}
	for _, f := range Families {
		m, err := NewManifest(f, in.bin, o.ExtensionIDs...)
		if err != nil {
			return nil, err
		}
		in.manifests[f.ID] = m.Encode()
	}
	return in, nil
}

// run takes the steps in order: binary, configuration, each browser's
// registration, the command link and the install record.
func (in *installer) run() error {
	if err := in.copyBinary(); err != nil {
		return err
	}
	if err := in.configure(); err != nil {
		return err
	}
	for _, b := range in.browsers {
		if err := in.register(b); err != nil {
			return err
		}
	}
	if in.DryRun {
		return nil
	}
	in.linkCommand()
	return in.writeRecord()
}

// chooseBrowsers selects the browsers; when none is found it takes all of
// them, so that one installed later finds the host.
func (in *installer) chooseBrowsers() error {
	browsers, err := in.Env.Select(in.Browsers, in.Registry, in.LookPath)
	if err != nil {
		return err
	}
	if len(browsers) == 0 {
		fmt.Fprintln(in.out, "No supported browser found; registering for all of them, so one installed later finds the host.")
		browsers, _ = in.Env.Select("all", in.Registry, in.LookPath)
	}
	in.browsers = browsers
	return nil
}

// say reports one action, under the browser's id ("-" for none).
func (in *installer) say(browser, format string, args ...any) {
	a := Action{browser, fmt.Sprintf(format, args...)}
	in.acts = append(in.acts, a)
	name := browser
	if name == "" {
		name = "-"
	}
	fmt.Fprintf(in.out, "  %-14s %s\n", name, a.What)
}

// verb picks the past tense, or the conditional in a dry run.
func (in *installer) verb(done, dry string) string {
	if in.DryRun {
		return dry
	}
	return done
}

// created records the folders that writing name will create.
func (in *installer) created(name string) {
	in.rec.Dirs = append(in.rec.Dirs, missingDirs(filepath.Dir(name))...)
}

// copyBinary puts the host binary (Source, or the running executable) in
// the install folder.
func (in *installer) copyBinary() error {
	src := in.Source
	if src == "" {
		var err error
		if src, err = os.Executable(); err != nil {
			return fmt.Errorf("find own executable: %w", err)
		}
	}
	switch {
	case sameFile(src, in.bin):
		in.say("", "binary %s already in place", in.bin)
	case in.DryRun:
		in.say("", "would copy %s to %s", src, in.bin)
	default:
		in.created(in.bin)
		changed, err := copyFile(src, in.bin)
		if err != nil {
			return fmt.Errorf("install binary: %w", err)
		}
		if changed {
			in.say("", "copied %s to %s", src, in.bin)
		} else {
			in.say("", "binary %s up to date", in.bin)
		}
	}
	in.rec.Binary = in.bin
	return nil
}

// configure sets the munim provider in the configuration. The browser
// starts the host in the host's folder with a minimal PATH, so the Munim
// command is made absolute now.
func (in *installer) configure() error {
	if in.Munim == "" {
		return nil
	}
	cfg := in.Env.ConfigFile
	if !in.DryRun {
		in.Munim = absCommand(in.Munim)
		in.created(cfg)
		fresh, err := config.InstallProvider(cfg, MunimProvider(in.Munim, in.MunimArgs))
		if err != nil {
			return err
		}
		if fresh {
			in.rec.Config = cfg
		}
	}
	in.say("", "%s provider munim = %s in %s", in.verb("set", "would set"),
		strings.Join(append([]string{in.Munim}, in.MunimArgs...), " "), cfg)
	if why := munimProblem(in.Env.GOOS, in.Munim); why != "" {
		in.say("", "warning: %s: the host will report munim down until it can start it (then run: gnosis-host doctor)", why)
	}
	return nil
}

// register writes browser b's manifest and, on Windows, its registry keys.
// Browsers sharing a place are told so rather than written twice.
func (in *installer) register(b Browser) error {
	mpath, err := in.Env.ManifestPath(b, in.Scope)
	if err != nil {
		return err
	}
	if in.Env.GOOS != "windows" {
		if by, ok := in.written[mpath]; ok {
			in.say(b.ID, "shares %s (written for %s)", mpath, by)
			return nil
		}
		return in.writeManifestOnce(b, mpath, b.ID)
	}
	// On Windows browsers may share the manifest; each has its own keys.
	if err := in.writeManifestOnce(b, mpath, ""); err != nil {
		return err
	}
	keys, _ := in.Env.RegistryKeys(b)
	for _, key := range keys {
		if err := in.setKey(b, key, mpath); err != nil {
			return err
		}
	}
	return nil
}

// writeManifestOnce writes b's family manifest at mpath unless an earlier
// browser did, reporting it under who.
func (in *installer) writeManifestOnce(b Browser, mpath, who string) error {
	if _, ok := in.written[mpath]; ok {
		return nil
	}
	in.written[mpath] = b.ID
	if !in.DryRun {
		in.created(mpath)
	}
	if err := in.writeManifest(mpath, in.manifests[b.Family.ID]); err != nil {
		return err
	}
	in.rec.Files = append(in.rec.Files, mpath)
	in.say(who, "%s %s", in.verb("wrote", "would write"), mpath)
	return nil
}

// setKey sets one of b's registry keys to the manifest's path and reads it
// back, unless an earlier browser set it.
func (in *installer) setKey(b Browser, key, mpath string) error {
	root := RootFor(in.Scope)
	full := string(root) + `\` + key
	note := ""
	if strings.HasPrefix(key, winChrome+`\`) && !strings.HasPrefix(b.ID, "chrome") {
		note = fmt.Sprintf(" (%s reads Chrome's key)", b.Name)
	}
	if by, ok := in.written[full]; ok {
		in.say(b.ID, "shares %s (set for %s)%s", full, by, note)
		return nil
	}
	in.written[full] = b.ID
	if !in.DryRun {
		for _, p := range parentKeys(key) {
			if !in.Registry.Exists(root, p) {
				in.rec.ParentKeys = append(in.rec.ParentKeys, string(root)+`\`+p)
			}
		}
		if err := in.Registry.Set(root, key, mpath); err != nil {
			return err
		}
		got, err := in.Registry.Get(root, key)
		if err != nil {
			return fmt.Errorf("read back %s: %w", full, err)
		}
		if got != mpath {
			return fmt.Errorf("read back %s: %q, want %q", full, got, mpath)
		}
	}
	in.rec.Keys = append(in.rec.Keys, full)
	in.say(b.ID, "%s %s = %s%s", in.verb("set", "would set"), full, mpath, note)
	return nil
}

// linkCommand puts a gnosis-host link on the user's PATH (user scope,
// outside Windows); a failure is reported, not fatal.
func (in *installer) linkCommand() {
	link := in.Env.commandLink()
	if link == "" || in.Scope != User {
		return
	}
	in.created(link)
	ok, err := linkCommand(link, in.bin)
	switch {
	case err != nil:
		in.say("", "could not link %s: %v", link, err)
	case ok:
		in.rec.Files = append(in.rec.Files, link)
		in.say("", "linked %s to %s: you can type gnosis-host", link, in.bin)
	default:
		in.say("", "left %s alone: it is not a link to %s", link, in.bin)
	}
}

// writeRecord merges what this run wrote into the install record.
func (in *installer) writeRecord() error {
	old, err := readRecord(in.Env.RecordFile())
	if err != nil {
		return err
	}
	if err := old.merge(in.rec).write(in.Env.RecordFile()); err != nil {
		return fmt.Errorf("write install record: %w", err)
	}
	return nil
}

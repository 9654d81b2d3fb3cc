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
	in, err := newInstaller(o)
	if err != nil {
		return nil, err
	}
	err = in.run()
	return in.acts, err
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

// NextStep is what to tell a person after a successful install: load the
// extension, then check. command is how they run the host (Env.Command);
// extensionDir is the unpacked extension beside this binary ("" when there
// is none, as for a release: then the release's packages are named).
func NextStep(command, extensionDir string) string {
	chrome := "pick the Gnosis extension's folder (the release's Chrome package, unzipped)"
	firefox := "pick the release's Firefox package (gnosis-<version>-firefox.xpi)"
	if extensionDir != "" {
		chrome = "pick the folder " + extensionDir
		firefox = "pick " + filepath.Join(extensionDir, "manifest.json")
	}
	return fmt.Sprintf(`Next: open chrome://extensions (edge://extensions, brave://extensions, ...), turn on
Developer mode, click "Load unpacked" and %[2]s.
In Firefox open about:debugging#/runtime/this-firefox, click "Load Temporary Add-on..." and %[3]s.
Then open the Gnosis options page: it should say the host is connected. If not, run: %[1]s doctor
Check the connection from a terminal: %[1]s call capabilities.list`, command, chrome, firefox)
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

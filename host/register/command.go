package register

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// UserBin is the per-user folder for commands that install links the host
// into, relative to the home folder, when it is on PATH.
var UserBin = filepath.Join(".local", "bin")

// commandLink is where install links the host so that a person can type
// gnosis-host: ~/.local/bin/gnosis-host, when that folder is on PATH and the
// system is not Windows (whose installs keep the full path). "" otherwise.
func (e Env) commandLink() string {
	if e.GOOS == "windows" || e.Home == "" {
		return ""
	}
	want := filepath.Join(e.Home, UserBin)
	for _, d := range e.PathDirs {
		if d != "" && filepath.Clean(d) == want {
			return filepath.Join(want, e.BinaryName())
		}
	}
	return ""
}

// Command is what a person types to run the installed host: its bare name
// when the first one found on PATH is the installed binary, else its full
// path.
func (e Env) Command() string {
	bin := e.InstalledBinary()
	for _, d := range e.PathDirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, e.BinaryName())
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if sameFile(p, bin) {
			return "gnosis-host"
		}
		break // another gnosis-host comes first
	}
	return bin
}

// linkCommand makes link a symbolic link to bin, leaving alone a file that
// is not such a link. It reports whether the link is in place.
func linkCommand(link, bin string) (bool, error) {
	if target, err := os.Readlink(link); err == nil && target == bin {
		return true, nil
	}
	if _, err := os.Lstat(link); err == nil {
		return false, nil // someone else's file or link
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return false, fmt.Errorf("link command: %w", err)
	}
	if err := os.Symlink(bin, link); err != nil {
		return false, fmt.Errorf("link command: %w", err)
	}
	return true, nil
}

// munimProblem says why command, given as --munim, will not start yet ("" if
// it looks runnable): it does not exist, is a folder, or is not executable.
func munimProblem(goos, command string) string {
	if !filepath.IsAbs(command) {
		if _, err := exec.LookPath(command); err != nil {
			return fmt.Sprintf("%s is not found on PATH", command)
		}
		return ""
	}
	st, err := os.Stat(command)
	switch {
	case err != nil:
		return fmt.Sprintf("%s does not exist", command)
	case st.IsDir():
		return fmt.Sprintf("%s is a folder, not a program", command)
	case !executable(goos, command, st):
		return fmt.Sprintf("%s is not executable (chmod +x %q)", command, command)
	}
	return ""
}

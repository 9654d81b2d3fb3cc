package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/internal/testshort"
)

// TestCLIInstallWarnsAboutAMunimThatCannotRun: install --munim with a path
// that does not exist, or is not executable, still writes the config (Munim
// may come later) and warns.
func TestCLIInstallWarnsAboutAMunimThatCannotRun(t *testing.T) {
	testshort.Parallel(t)
	if runtime.GOOS == "windows" {
		t.Skip("execute permission is a Unix notion")
	}
	h := newRegHome(t)
	notExec := filepath.Join(h.home, "munim-not-executable")
	writeFile(t, notExec, []byte("#!/bin/sh\n"))
	for _, tc := range []struct{ munim, says string }{
		{filepath.Join(h.home, "later", "munim"), "does not exist"},
		{notExec, "is not executable"},
	} {
		out, err := h.run(t, hostBin, "install", "--munim", tc.munim)
		if err != nil {
			t.Fatalf("install: %v\n%s", err, out)
		}
		if !strings.Contains(out, "warning: "+tc.munim+" "+tc.says) {
			t.Errorf("install --munim %s does not warn that it %s:\n%s", tc.munim, tc.says, out)
		}
		cfg, _ := os.ReadFile(filepath.Join(h.config, "gnosis", "config.json"))
		if !strings.Contains(string(cfg), tc.munim) {
			t.Errorf("config does not name %s:\n%s", tc.munim, cfg)
		}
	}
	out, err := h.run(t, hostBin, "install", "--munim", fakemunimBin)
	if err != nil || strings.Contains(out, "warning:") {
		t.Errorf("install with a runnable Munim warns (%v):\n%s", err, out)
	}
}

// TestCLIInstallLinksTheCommand: when ~/.local/bin is on PATH, install links
// gnosis-host there, so the next steps say plain "gnosis-host" and a shell
// finds it; uninstall removes the link. Without it, the next steps give the
// installed binary's full path.
func TestCLIInstallLinksTheCommand(t *testing.T) {
	testshort.Parallel(t)
	if runtime.GOOS == "windows" {
		t.Skip("Windows installs keep the full path")
	}
	h := newRegHome(t)
	userBin := filepath.Join(h.home, ".local", "bin")
	h.path = userBin + string(os.PathListSeparator) + h.path
	out, err := h.run(t, hostBin, "install")
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	link := filepath.Join(userBin, "gnosis-host")
	installed := filepath.Join(h.data, "gnosis", "gnosis-host")
	if target, err := os.Readlink(link); err != nil || target != installed {
		t.Fatalf("%s -> %q (%v), want a link to %s\n%s", link, target, err, installed, out)
	}
	if !strings.Contains(out, "run: gnosis-host doctor") || !strings.Contains(out, "terminal: gnosis-host call capabilities.list") {
		t.Errorf("next steps do not use the bare command:\n%s", out)
	}
	typed := exec.Command("/bin/sh", "-c", "gnosis-host version") // as a person types it
	typed.Env = h.env()
	if v, err := typed.Output(); err != nil || !strings.HasPrefix(string(v), "gnosis-host ") {
		t.Errorf("typing gnosis-host version: %v %q", err, v)
	}
	out, err = h.run(t, hostBin, "uninstall")
	if _, lerr := os.Lstat(link); err != nil || lerr == nil {
		t.Errorf("uninstall left %s (%v):\n%s", link, err, out)
	}

	plain := newRegHome(t)
	out, err = plain.run(t, hostBin, "install")
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	full := filepath.Join(plain.data, "gnosis", "gnosis-host")
	if !strings.Contains(out, "run: "+full+" doctor") {
		t.Errorf("next steps do not give the full path %s:\n%s", full, out)
	}
}

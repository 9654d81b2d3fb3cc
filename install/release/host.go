package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// binaryName is gnosis-host's file name on goos.
func binaryName(goos string) string {
	if goos == "windows" {
		return "gnosis-host.exe"
	}
	return "gnosis-host"
}

// buildHost builds gnosis-host for one target into bin. The tests replace it
// with a cache so that each target is compiled once per test binary.
var buildHost = build

func build(goos, goarch, version, bin string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+version, "-o", bin, "./cmd/gnosis-host")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build %s/%s: %w", goos, goarch, err)
	}
	return nil
}

// signer returns a function signing a Windows binary in place, or nil when
// no certificate is configured.
func signer() (func(string) error, error) {
	var args []string
	switch {
	case os.Getenv("SIGN_PFX") != "":
		args = []string{"-pkcs12", os.Getenv("SIGN_PFX")}
		if p := os.Getenv("SIGN_PASS"); p != "" {
			args = append(args, "-pass", p)
		}
	case os.Getenv("SIGN_CERT") != "" && os.Getenv("SIGN_KEY") != "":
		args = []string{"-certs", os.Getenv("SIGN_CERT"), "-key", os.Getenv("SIGN_KEY")}
		if p := os.Getenv("SIGN_PASS"); p != "" {
			args = append(args, "-pass", p)
		}
	case os.Getenv("SIGN_CERT") != "" || os.Getenv("SIGN_KEY") != "":
		return nil, fmt.Errorf("signing needs both SIGN_CERT and SIGN_KEY (or SIGN_PFX)")
	default:
		return nil, nil
	}
	tool, err := exec.LookPath("osslsigncode")
	if err != nil {
		return nil, fmt.Errorf("a signing certificate is set but osslsigncode is not installed: %w", err)
	}
	args = append(args, "-h", "sha256", "-n", "Gnosis host", "-i", "https://github.com/gnosis/gnosis")
	if ts := os.Getenv("SIGN_TIMESTAMP"); ts != "" {
		args = append(args, "-ts", ts)
	}
	return func(bin string) error {
		signed := bin + ".signed"
		cmd := exec.Command(tool, append(append([]string{"sign"}, args...), "-in", bin, "-out", signed)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("osslsigncode: %w\n%s", err, out)
		}
		return os.Rename(signed, bin)
	}, nil
}

// copyFile copies src to dst (made executable), whole or not at all.
func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, data, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

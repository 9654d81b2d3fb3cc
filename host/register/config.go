package register

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/gnosis/gnosis/host/config"
)

// MunimProvider is the provider entry install writes for --munim
// (config.InstallProvider, the one writer of the configuration file).
func MunimProvider(command string, args []string) config.Provider {
	return config.Provider{Name: config.DefaultProvider, Command: command, Args: args, Prefix: config.DefaultPrefix}
}

// findCommand resolves a provider command the way the host will start it:
// an absolute path must exist; a bare name is looked up on PATH.
func findCommand(cmd string) (string, error) {
	if filepath.IsAbs(cmd) {
		if _, err := os.Stat(cmd); err != nil {
			return "", fmt.Errorf("%s: %w", cmd, err)
		}
		return cmd, nil
	}
	p, err := exec.LookPath(cmd)
	if err != nil {
		return "", fmt.Errorf("%q not found on PATH (a browser starts the host with a minimal PATH: prefer an absolute path)", cmd)
	}
	return p, nil
}

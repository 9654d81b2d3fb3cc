package register

// The doctor's checks of the host's configuration file, read as the host
// reads it when a browser starts it, and of each provider it names.

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/host/shellquote"
)

// config checks the configuration file the way the host will read it when a
// browser starts it (with the browser's environment, so without MUNIM_PATH),
// and each provider's command.
func (d *doctor) config() {
	name := d.Env.ConfigFile
	if _, err := os.Stat(name); errors.Is(err, os.ErrNotExist) {
		d.add("-", "config", Warn, "%s does not exist: the host runs with no MCP server; to add yours, run: %s", name, d.munimCommand(nil))
		return
	}
	cfg, problem := loadConfig(name)
	clashes, problem := splitClashes(problem)
	if problem != nil {
		why := strings.TrimPrefix(problem.Error(), "config "+name+": ")
		d.add("-", "config", Fail, "%s: %s; fix: edit it where it says, or move it aside and run: %s", name, why, d.munimCommand(nil))
	} else {
		d.add("-", "config", OK, "%s: %d provider(s)", name, len(cfg.Providers))
	}
	if d.SelfTest && d.health == nil && d.Self != "" && len(cfg.Providers) > 0 {
		// No registered host was started: start this one to see the providers run.
		if h, err := SelfTest(d.Self, Chromium.LaunchArgs(d.Env.GOOS, ""), d.Timeout, d.settleTime()); err == nil {
			d.health = &h
			d.add("-", "self-test", OK, "no registered host answered, so %s started the providers below", d.Self)
		}
	}
	for _, c := range clashes {
		d.add("-", "policy", Fail, "%s: %s; fix: keep one of these keys in %s, or save this site's grants on the options page, which keeps one",
			name, strings.TrimPrefix(c.Error(), "policy.origins: "), name)
	}
	for _, p := range cfg.Providers {
		d.provider(p, name)
	}
}

// splitClashes separates Load's problems about policy keys that name one
// origin (reported on rows of their own) from the others.
func splitClashes(problem error) (clashes []*config.ClashError, rest error) {
	var others []error
	for _, e := range flatten(problem) {
		var c *config.ClashError
		if errors.As(e, &c) {
			clashes = append(clashes, c)
		} else {
			others = append(others, e)
		}
	}
	return clashes, errors.Join(others...)
}

// flatten lists the errors errors.Join put together (err itself otherwise).
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// loadConfig reads the configuration file name the way the host will when
// a browser starts it (with the browser's environment, so without
// MUNIM_PATH).
func loadConfig(name string) (config.Config, error) {
	cfg, _, problem := config.Load(func(k string) string {
		if k == config.EnvConfig {
			return name
		}
		return ""
	})
	return cfg, problem
}

// settleTime bounds the wait for the providers of the configuration to
// finish starting: the longest startTimeout, and a little more.
func (d *doctor) settleTime() time.Duration {
	cfg, _ := loadConfig(d.Env.ConfigFile)
	return StartWait(cfg)
}

// StartWait is how long to wait for every provider of cfg to finish
// starting: its longest startTimeout (30 s when unset), plus 5 s.
func StartWait(cfg config.Config) time.Duration {
	longest := defaultStartTimeout
	if len(cfg.Providers) > 0 {
		longest = 0
	}
	for _, p := range cfg.Providers {
		t := time.Duration(p.StartTimeout)
		if t <= 0 {
			t = defaultStartTimeout
		}
		longest = max(longest, t)
	}
	return longest + 5*time.Second
}

// defaultStartTimeout is a provider's start-up limit when the config sets
// none (mcpprovider.DefaultStartTimeout).
const defaultStartTimeout = 30 * time.Second

// provider checks one provider: its command exists and, when a host was
// started, the provider got ready there.
func (d *doctor) provider(p config.Provider, configFile string) {
	item := "provider " + p.Name
	fixCommand := fmt.Sprintf("fix its \"command\" in %s", configFile)
	if p.Name == config.DefaultProvider {
		fixCommand = "run: " + d.munimCommand(append([]string{}, p.Args...))
	}
	path, err := findCommand(p.Command)
	if err != nil {
		d.add("-", item, Fail, "command %v; %s", err, fixCommand)
		return
	}
	var ph *ProviderHealth
	if d.health != nil {
		for i := range d.health.Providers {
			if d.health.Providers[i].Name == p.Name {
				ph = &d.health.Providers[i]
			}
		}
	}
	if ph == nil {
		d.add("-", item, OK, "%s", path)
		return
	}
	var more []string
	if ph.Stderr != "" {
		more = strings.Split(ph.Stderr, "\n")
	}
	run := shellquote.Line(d.Env.GOOS, p.Command, p.Args)
	switch ph.State {
	case "ready":
		d.add("-", item, OK, "%s: ready, %d capabilities", path, ph.Capabilities)
		return
	case "starting":
		d.checks = append(d.checks, Check{"-", item, Fail, fmt.Sprintf(
			"%s: still starting after %s; fix: raise its \"startTimeout\" in %s, or run it by hand to see why it is slow: %s",
			path, d.settleTime(), configFile, run), more})
		return
	}
	var fix string
	switch {
	case strings.Contains(ph.Error, "(startTimeout)"):
		fix = fmt.Sprintf("fix: raise its \"startTimeout\" in %s if it is only slow; run it by hand to see what it waits for: %s", configFile, run)
	case strings.Contains(ph.Error, "non-JSON on stdout"):
		fix = fmt.Sprintf("fix: point it at an MCP stdio server (%s), or make the server log to stderr", fixCommand)
	default:
		fix = "fix: run it by hand to see it fail: " + run
	}
	d.checks = append(d.checks, Check{"-", item, Fail, fmt.Sprintf("%s: %s: %s; %s", path, ph.State, ph.Error, fix), more})
}

// munimCommand is the install command that sets the "munim" provider, with
// a placeholder for the server's path that fits this system and the
// provider's arguments kept (or a placeholder for them when args is nil).
func (d *doctor) munimCommand(args []string) string {
	server := "/path/to/your-mcp-server"
	if d.Env.GOOS == "windows" {
		server = `"C:\path\to\munim.exe"`
	}
	c := d.command() + " install --munim " + server
	switch {
	case args == nil:
		return c + " [-- ITS ARGUMENTS]"
	case len(args) > 0:
		return c + " -- " + strings.Join(shellquote.Args(d.Env.GOOS, args), " ")
	}
	return c
}

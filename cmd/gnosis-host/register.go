package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/gnosis/gnosis/host/register"
)

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// runInstall implements `gnosis-host install [--browsers LIST|all] [--system]
// [--extension-id ID]... [--munim PATH [-- ARGS] | --munim-from-msi] [--dry-run]`.
func runInstall(args []string) error {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	browsers := fs.String("browsers", "", "comma-separated browser ids, or all (default: the browsers found)")
	system := fs.Bool("system", false, "register for every user of the machine (needs administrator rights)")
	var ids stringList
	fs.Var(&ids, "extension-id", "another extension id allowed to connect (repeatable)")
	munim := fs.String("munim", "", "path of the Munim MCP server; its arguments follow --")
	fromMSI := fs.Bool("munim-from-msi", false, "take the Munim path the Windows installer stored (its MUNIM property)")
	dry := fs.Bool("dry-run", false, "print what would be done, change nothing")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: gnosis-host install [flags] [-- MUNIM-ARGS]\nbrowsers: %s\n", strings.Join(register.IDs(runtime.GOOS), ", "))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return helpIsNoError(err)
	}
	var err error
	if *fromMSI {
		if *munim != "" || fs.NArg() > 0 {
			return errors.New("--munim-from-msi takes the path the installer stored: give neither --munim nor arguments with it")
		}
		if *munim, err = register.MSIMunim(); err != nil {
			return err
		}
	}
	if fs.NArg() > 0 && *munim == "" {
		return fmt.Errorf("arguments %q given without --munim", fs.Args())
	}
	env, err := register.CurrentEnv()
	if err != nil {
		return err
	}
	o := register.Options{Env: env, Registry: register.SystemRegistry(), Browsers: *browsers,
		ExtensionIDs: ids, Munim: *munim, MunimArgs: fs.Args(), DryRun: *dry, Out: os.Stdout}
	if *system {
		o.Scope = register.System
	}
	return install(o)
}

func install(o register.Options) error {
	if o.DryRun {
		fmt.Println("Dry run: nothing is changed.")
	}
	fmt.Printf("Installing gnosis-host (%s) in %s:\n", o.Scope, o.Env.InstallDir())
	if _, err := register.Install(o); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	fmt.Println()
	fmt.Println(register.NextStep(o.Env.Command(), extensionDir(o.Source)))
	return nil
}

// extensionDir is the unpacked extension that came with the binary src (""
// for this executable): extension/ beside it, or beside its folder as in a
// source checkout (bin/gnosis-host). "" when there is none.
func extensionDir(src string) string {
	if src == "" {
		src, _ = os.Executable()
	}
	if src == "" {
		return ""
	}
	dir := filepath.Dir(src)
	for _, d := range []string{filepath.Join(dir, "extension"), filepath.Join(filepath.Dir(dir), "extension")} {
		if _, err := os.Stat(filepath.Join(d, "manifest.json")); err == nil {
			if abs, err := filepath.Abs(d); err == nil {
				return abs
			}
			return d
		}
	}
	return ""
}

// runUninstall implements `gnosis-host uninstall [--dry-run]`.
func runUninstall(args []string) error {
	fs := flag.NewFlagSet("uninstall", flag.ContinueOnError)
	dry := fs.Bool("dry-run", false, "print what would be removed, change nothing")
	if err := fs.Parse(args); err != nil {
		return helpIsNoError(err)
	}
	env, err := register.CurrentEnv()
	if err != nil {
		return err
	}
	fmt.Printf("Uninstalling gnosis-host from %s:\n", env.InstallDir())
	if _, err := register.Uninstall(register.Options{Env: env, Registry: register.SystemRegistry(),
		DryRun: *dry, Out: os.Stdout}); err != nil {
		return fmt.Errorf("uninstall: %w", err)
	}
	return nil
}

// runDoctor implements `gnosis-host doctor [--browsers LIST|all] [--no-self-test]`.
func runDoctor(args []string) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	browsers := fs.String("browsers", "", "comma-separated browser ids, or all (default: every browser, skipping those neither installed nor registered)")
	noSelfTest := fs.Bool("no-self-test", false, "do not launch the registered host")
	if err := fs.Parse(args); err != nil {
		return helpIsNoError(err)
	}
	env, err := register.CurrentEnv()
	if err != nil {
		return err
	}
	checks, err := register.Doctor(doctorOptions(env, *browsers, !*noSelfTest))
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	if err := register.PrintTable(os.Stdout, checks); err != nil {
		return err
	}
	fmt.Println("\n" + register.Summary(checks))
	if register.Failed(checks) {
		return exitCode(1)
	}
	return nil
}

// doctorOptions is how this binary runs doctor: with this system's registry,
// naming itself (in fixes, and to start when no browser has a host) and its
// version (to compare with the registered host's).
func doctorOptions(env register.Env, browsers string, selfTest bool) register.DoctorOptions {
	self, _ := os.Executable()
	return register.DoctorOptions{Env: env, Registry: register.SystemRegistry(), Browsers: browsers,
		SelfTest: selfTest, Self: self, Version: version}
}

// runOneClick is what happens when a person starts the binary with no
// arguments: register for every browser found and say what was done. A
// double-click (Explorer, Finder) or a start without a terminal does it at
// once, and on Windows keeps the window open; typed in a terminal, it first
// asks.
func runOneClick() error {
	if fromTerminal(os.Stdin.Fd()) {
		return askThenInstall(os.Stdin, os.Stdout)
	}
	env, err := register.CurrentEnv()
	if err == nil {
		err = install(register.Options{Env: env, Registry: register.SystemRegistry(), Out: os.Stdout})
	}
	if err != nil {
		fmt.Println("Error:", err)
	}
	if runtime.GOOS == "windows" {
		waitForEnter(os.Stdin)
	}
	return err
}

// askThenInstall asks a person at a terminal whether to register the host,
// and does it on yes.
func askThenInstall(in io.Reader, out io.Writer) error {
	env, err := register.CurrentEnv()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "gnosis-host %s: the Gnosis native-messaging host (gnosis-host help lists its commands).\n", version)
	fmt.Fprintf(out, "Install it in %s and register it with every browser found? [y/N] ", env.InstallDir())
	answer, _ := bufio.NewReader(in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return install(register.Options{Env: env, Registry: register.SystemRegistry(), Out: out})
	}
	fmt.Fprintln(out, "Nothing changed.")
	return nil
}

// helpIsNoError turns -h (usage already printed) into a clean exit.
func helpIsNoError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

func waitForEnter(r io.Reader) {
	fmt.Print("\nPress Enter to close this window.")
	bufio.NewReader(r).ReadString('\n')
}

// Command gnosis-host is Gnosis's Chrome native-messaging host.
//
// A browser starts it with the caller's origin as argument; it then serves
// the protocol of docs/protocol.md on stdin/stdout until the browser closes
// the port. A person uses its commands: call (talk to a host exactly as a
// browser would), install, uninstall, doctor, report (a redacted diagnostic
// text for a bug report), version; with no arguments it
// registers itself with every browser found (one click).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/gnosis/gnosis/host/launch"
)

// version is set at build time: -ldflags "-X main.version=...".
var version = "dev"

// command is one entry of the command table.
type command struct {
	usage string
	run   func(args []string) error
}

var commands = map[string]command{
	"call": {
		usage: callUsage,
		run:   runCall,
	},
	"version":   {usage: "version\n\tprint the version", run: runVersion},
	"install":   {usage: "install [flags]\n\tregister the host with the browsers found (see install -h)", run: runInstall},
	"uninstall": {usage: "uninstall [flags]\n\tremove the registrations", run: runUninstall},
	"doctor":    {usage: "doctor [flags]\n\tcheck the installation and say what is wrong", run: runDoctor},
	"report":    {usage: reportUsage, run: runReport},
}

const callUsage = "call [--no-wait] [--verbose] [--timeout DURATION] METHOD [PARAMS-JSON]\n\tstart this binary as a browser would, send one request, print the reply\n\t(it says so when browsers start another one; doctor checks that one)"

// exitCode is an error that only sets the exit status (its cause was
// already reported, e.g. a failure reply printed by call).
type exitCode int

// Error is only for logs; run turns an exitCode into the status silently.
func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run dispatches on how the binary was started and returns the exit status.
func run(args []string, stderr io.Writer) int {
	l := launch.Parse(args)
	var err error
	switch l.Kind {
	case launch.Browser:
		err = serve(l)
	case launch.Person:
		err = runOneClick()
	case launch.Command:
		name := l.Args[0]
		if name == "help" || name == "-h" || name == "--help" {
			usage(os.Stdout)
			return 0
		}
		c, ok := commands[name]
		if !ok {
			fmt.Fprintf(stderr, "gnosis-host: unknown command %q\n\n", name)
			usage(stderr)
			return 2
		}
		err = c.run(l.Args[1:])
	}
	var code exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	default:
		fmt.Fprintf(stderr, "gnosis-host: %v\n", err)
		return 1
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "gnosis-host %s: the Gnosis native-messaging host.\n\n", version)
	fmt.Fprintln(w, "A browser starts it with its extension's origin; you can run:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  gnosis-host %s\n", commands[n].usage)
	}
	fmt.Fprintln(w, "  gnosis-host\n\twith no arguments: register with every browser found (one click; asks first in a terminal)")
	fmt.Fprint(w, exitStatuses)
}

// exitStatuses documents the exit statuses (docs/install.md too).
const exitStatuses = `
Exit status:
  0  success (call: the reply is ok and every provider is ready; doctor: no check failed;
     report: the text is printed, whatever doctor found)
  1  failure (call: the reply says "ok": false, or the host could not be reached;
     doctor: a check failed; install, uninstall: nothing or not everything was done)
  2  wrong usage
  3  call: the reply is ok, but a provider is not ready or the configuration is broken
     (each is named on stderr, with its reason)
`

func runVersion(args []string) error {
	fmt.Printf("gnosis-host %s\n", version)
	return nil
}

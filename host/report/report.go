// Package report writes the diagnostic report a person pastes into a bug
// report: versions, doctor's checks, the configuration, the providers'
// states and the last log lines, as one text with every secret masked.
//
// The text leaves the machine, so it is redacted more strictly than the
// debug log, with the same pieces (runtime.Secrets, runtime.RedactJSON,
// relay.RedactURL): the configuration keeps its structure, names, prefixes
// and commands, but every env value, argument, header value, secret-named
// field and URL query value is replaced by [redacted]; every value so
// replaced, and every secret-named variable of the environment, is then
// masked wherever the rest of the text quotes it (a server's stderr, a log
// line, a doctor row); the home folder is written ~.
//
// The package only formats what it is given: `gnosis-host report` gathers
// it with doctor's self-test, the host's report method from the host itself
// without starting another one.
package report

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/gnosis/gnosis/host/redact"
	"github.com/gnosis/gnosis/host/register"
	grt "github.com/gnosis/gnosis/runtime"
)

// Provider is one provider's state, as health reports it.
type Provider struct {
	Name, Prefix, State string
	Capabilities        int
	Error, Stderr       string
}

// Options is what the report shows.
type Options struct {
	// Version and Protocol are the host's (health's version and protocol).
	Version  string
	Protocol int
	// Checks are doctor's rows; DoctorNote says how doctor ran.
	Checks     []register.Check
	DoctorNote string
	// ConfigFile is the configuration file the host reads.
	ConfigFile string
	// Providers are the providers' states; ProvidersNote says where they
	// come from, or why there are none.
	Providers     []Provider
	ProvidersNote string
	// LogFile is the host's log ("" when logging to a file is off); LogLines
	// how many of its last lines to show.
	LogFile  string
	LogLines int
	// Environ is the environment whose secret-named variables are masked
	// (os.Environ()); Home is the folder written ~.
	Environ []string
	Home    string
	// Secrets are further values known to be secret (those the host saw
	// under secret names in requests), masked wherever the text quotes them.
	Secrets *redact.Set
}

// DefaultLogLines is how many log lines a report shows by default.
const DefaultLogLines = 40

// Text is the report.
func Text(o Options) string {
	if o.LogLines == 0 {
		o.LogLines = DefaultLogLines
	}
	var secrets redact.Set
	secrets.AddEnviron(o.Environ)
	config, values := configSection(o.ConfigFile)
	secrets.Add(values...)

	var b strings.Builder
	b.WriteString(Preamble)
	fmt.Fprintf(&b, "\n## Versions\n\nhost: %s\nprotocol: %d\ngo: %s\nsystem: %s/%s\n", o.Version, o.Protocol, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	b.WriteString("\n## Doctor\n\n" + o.DoctorNote + "\n\n```\n")
	register.PrintTable(&b, o.Checks)
	b.WriteString("\n" + register.Summary(o.Checks) + "\n```\n")
	fmt.Fprintf(&b, "\n## Configuration\n\n%s\n\n%s", o.ConfigFile, config)
	b.WriteString("\n## Providers\n\n" + o.ProvidersNote + "\n")
	writeProviders(&b, o.Providers)
	writeLog(&b, o.LogFile, o.LogLines, &secrets)
	if n := o.Secrets.Missed(); n > 0 {
		fmt.Fprintf(&b, "\nThe host saw %d more values under secret names in requests than the %d it keeps: those are masked here by pattern only.\n",
			n, redact.MaxLearned)
	}
	return shortenHome(o.Secrets.Redact(secrets.Redact(b.String())), o.Home)
}

// Preamble opens every report: what it masks, so the person pasting it
// knows what it no longer shows (and what to check before sharing it).
const Preamble = "Gnosis diagnostic report. Shown as [redacted]: the configuration's env values, arguments, header values, " +
	"secret-named fields and URL query values; those values, the secret-named environment variables and every value the host saw " +
	"under a secret name, wherever they recur (stderr, log lines, doctor rows), also JSON-quoted, percent-encoded, base64-encoded " +
	"or cut by a line break; in free text, bearer-scheme tokens, API keys of known shapes, JSON web tokens, name=value secrets, a quoted " +
	"secret-named value to its closing quote, the value after password, passphrase, secret, token, api key, access key, session id, " +
	"cookie or credentials, the line after a prompt for one, and private key bodies. The home folder is shown as ~.\n"

// writeProviders writes each provider's state, its reason and its stderr.
func writeProviders(w io.Writer, ps []Provider) {
	for _, p := range ps {
		fmt.Fprintf(w, "\n- %s (prefix %s): %s, %d capabilities\n", p.Name, p.Prefix, p.State, p.Capabilities)
		if p.Error != "" {
			fmt.Fprintf(w, "  error: %s\n", p.Error)
		}
		if p.Stderr != "" {
			fmt.Fprintf(w, "  its last lines on stderr:\n\n```\n%s\n```\n", p.Stderr)
		}
	}
}

// writeLog writes the log's last lines, each redacted as the debug log
// redacts arguments (runtime.RedactJSON), the known secrets masked first so
// that cutting a long value cannot leave part of one.
func writeLog(w io.Writer, file string, n int, secrets *redact.Set) {
	if file == "" {
		fmt.Fprint(w, "\n## Log\n\nThe log file is off (\"log\": {\"file\": \"-\"}).\n")
		return
	}
	lines, err := logTail(file, n)
	switch {
	case err != nil:
		fmt.Fprintf(w, "\n## Log\n\n%s: %v\n", file, err)
	case len(lines) == 0:
		fmt.Fprintf(w, "\n## Log\n\n%s: no lines yet.\n", file)
	default:
		fmt.Fprintf(w, "\n## Log\n\nThe last %d lines of %s:\n\n```\n", len(lines), file)
		masker := redact.NewLines(secrets)
		for _, l := range lines {
			fmt.Fprintln(w, string(grt.RedactJSON(masker.Redact([]byte(l)))))
		}
		fmt.Fprint(w, "```\n")
	}
}

// shortenHome writes the home folder as ~, also where JSON text quotes it
// (a Windows home's backslashes doubled).
func shortenHome(text, home string) string {
	home = strings.TrimRight(home, `/\`)
	if len(home) < 2 {
		return text
	}
	text = strings.ReplaceAll(text, home, "~")
	return strings.ReplaceAll(text, strings.ReplaceAll(home, `\`, `\\`), "~")
}

// HomeDir is the home folder to shorten ("" when unknown).
func HomeDir() string {
	h, _ := os.UserHomeDir()
	return h
}

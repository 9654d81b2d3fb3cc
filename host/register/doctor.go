package register

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gnosis/gnosis/host/shellquote"
)

// Status is the outcome of one doctor check.
type Status string

// Statuses, from good to bad.
const (
	OK   Status = "ok"
	Skip Status = "-"
	Warn Status = "WARN"
	Fail Status = "FAIL"
)

// Check is one row of the doctor's table.
type Check struct {
	Browser string // browser id, or "-" for machine-wide checks
	Item    string
	Status  Status
	Detail  string
	// More is printed under the table, one indented line each: what a
	// failing provider last wrote on stderr.
	More []string
}

// DoctorOptions says what the doctor examines.
type DoctorOptions struct {
	Env      Env
	Registry Registry
	// Browsers is a --browsers value; "" examines every browser of the table,
	// skipping those neither installed nor registered.
	Browsers string
	// SelfTest launches each registered host once; Timeout bounds its reply
	// (10 s when zero).
	SelfTest bool
	Timeout  time.Duration
	// Self is this binary, started to check the providers when no browser
	// has a host registered ("" skips that check), and named in fixes when
	// the installed one is gone.
	Self string
	// Version is this binary's version; a registered host of another
	// version gets a warning ("" skips the comparison).
	Version  string
	LookPath func(string) (string, error)
}

// Doctor examines the registration of every selected browser, the
// configuration and (with SelfTest) the registered host itself.
func Doctor(o DoctorOptions) ([]Check, error) {
	checks, _, err := DoctorHealth(o)
	return checks, err
}

// DoctorHealth is Doctor, and the health reply of the first host its
// self-test started (nil when none answered or SelfTest is off): the
// providers' states as a browser's host sees them.
func DoctorHealth(o DoctorOptions) ([]Check, *Health, error) {
	e := o.Env
	list := o.Browsers
	if list == "" {
		list = "all"
	}
	browsers, err := e.Select(list, o.Registry, o.LookPath)
	if err != nil {
		return nil, nil, err
	}
	d := &doctor{DoctorOptions: o, tested: map[string]bool{}}
	if d.Timeout == 0 {
		// A healthy host answers in milliseconds; a loaded machine (or Wine)
		// can take seconds to start one, and only a hung host waits it out.
		d.Timeout = 10 * time.Second
	}
	for _, b := range browsers {
		d.browser(b, o.Browsers != "")
	}
	if len(d.skipped) > 0 {
		d.add("-", "other browsers", Skip, "not installed, not registered: %s", strings.Join(d.skipped, ", "))
	}
	d.config()
	return d.checks, d.health, nil
}

// Failed reports whether any check failed.
func Failed(checks []Check) bool { return Count(checks, Fail) > 0 }

// Count is how many checks have status s.
func Count(checks []Check, s Status) int {
	n := 0
	for _, c := range checks {
		if c.Status == s {
			n++
		}
	}
	return n
}

// Summary is the doctor's last line: "All checks passed." only when no
// check failed or warned; otherwise how many did.
func Summary(checks []Check) string {
	fails, warns := Count(checks, Fail), Count(checks, Warn)
	switch {
	case fails > 0 && warns > 0:
		return fmt.Sprintf("%s and %s: each FAIL row says how to fix it.", plural(fails, "check failed", "checks failed"), plural(warns, "warning", "warnings"))
	case fails > 0:
		return fmt.Sprintf("%s: each FAIL row says how to fix it.", plural(fails, "check failed", "checks failed"))
	case warns > 0:
		return fmt.Sprintf("No check failed; %s (WARN rows above).", plural(warns, "warning", "warnings"))
	}
	return "All checks passed."
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// PrintTable writes the checks as an aligned table, then each check's More
// lines under its name.
func PrintTable(w io.Writer, checks []Check) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BROWSER\tCHECK\tRESULT\tDETAIL")
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Browser, c.Item, c.Status, c.Detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range checks {
		if len(c.More) == 0 {
			continue
		}
		if _, err := fmt.Fprintf(w, "\n%s: its last lines on stderr:\n", c.Item); err != nil {
			return err
		}
		for _, l := range c.More {
			if _, err := fmt.Fprintf(w, "    %s\n", l); err != nil {
				return err
			}
		}
	}
	return nil
}

type doctor struct {
	DoctorOptions
	checks  []Check
	later   []Check         // rows about the registry, printed after "registered"
	tested  map[string]bool // host binary and family already self-tested
	skipped []string        // browsers neither installed nor registered
	health  *Health         // the first self-test's health reply
}

func (d *doctor) add(browser, item string, s Status, format string, args ...any) {
	d.checks = append(d.checks, Check{Browser: browser, Item: item, Status: s, Detail: fmt.Sprintf(format, args...)})
}

// addLater queues a row to follow the next "registered" row.
func (d *doctor) addLater(browser, item string, s Status, format string, args ...any) {
	d.later = append(d.later, Check{Browser: browser, Item: item, Status: s, Detail: fmt.Sprintf(format, args...)})
}

func (d *doctor) flush() {
	d.checks = append(d.checks, d.later...)
	d.later = nil
}

// command is how a fix names the host to run: the installed one as a person
// types it, or this binary when the installed one is gone, or its bare name
// when neither is known.
func (d *doctor) command() string {
	c := d.Env.Command()
	if c == "gnosis-host" {
		return c
	}
	if _, err := os.Stat(c); err == nil {
		return shellquote.Arg(d.Env.GOOS, c)
	}
	if d.Self != "" {
		return shellquote.Arg(d.Env.GOOS, d.Self)
	}
	return "gnosis-host"
}

// says quotes what browser b tells the extension for fault f.
func (d *doctor) says(b Browser, f Fault) string { return says(b, d.Env.GOOS, f) }

// saysFor is " (what b says)" for a self-test error, or "" when the browser
// would say nothing of its own.
func (d *doctor) saysFor(b Browser, err error) string {
	if f, ok := selfTestFault(err); ok {
		return " (" + d.says(b, f) + ")"
	}
	return ""
}

// selfTestFix is the fix for a failed self-test.
func selfTestFix(err error, command, browser string) string {
	if f, ok := selfTestFault(err); ok && f.ID == FaultCannotStart.ID {
		return fmt.Sprintf("run: %s install --browsers %s", command, browser)
	}
	return fmt.Sprintf("its log says why (gnosis/gnosis-host.log in the user cache folder); if the manifest names a program that is not gnosis-host, run: %s install --browsers %s", command, browser)
}

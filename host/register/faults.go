package register

import (
	"fmt"
	"strings"
)

// Fault is one way the extension can fail to reach the host: what is wrong,
// the exact message each browser gives the extension for it, and the fix.
// Faults is the one table of these messages: doctor quotes it, and README's
// "When the extension cannot connect" is FaultTable's output (a test says
// so), and the end-to-end and Firefox suites set each fault up in Debian's
// Chromium and Firefox ESR and check the message against README's table
// (tests/e2e/lib/faults.js). Chromium's Windows message, which cannot be
// seen here, is its Windows launcher's (native_process_launcher_win.cc).
type Fault struct {
	// ID names the fault in code and tests.
	ID string
	// Cause says what is wrong, for people.
	Cause string
	// Says lists the messages per family id ("chromium", "firefox"), or per
	// family and system ("chromium/windows"), which wins. More than one
	// message means the browser gives either, depending on timing; none
	// means the port closes without one.
	Says map[string][]string
	// Fix is the general fix for the README; doctor's rows name the exact
	// command for the browser and system at hand.
	Fix string
	// Rows are the doctor rows that find the fault.
	Rows string
}

// The faults, in the order a browser meets them.
var (
	FaultNotRegistered = Fault{
		ID:    "not-registered",
		Cause: "the host is not installed for this browser: no manifest where it looks (on Windows, no registry key, or one naming a file that is gone)",
		Says: map[string][]string{
			Chromium.ID: {"Specified native messaging host not found."},
			Firefox.ID:  {"No such native application " + HostName},
		},
		Fix:  "`gnosis-host install` (or **Install the host** on the options page)",
		Rows: "registered, registry value",
	}
	FaultBadManifest = Fault{
		ID:    "bad-manifest",
		Cause: "the manifest is there but unusable: not valid JSON, its `name` is not `" + HostName + "`, its `type` is not `stdio`, its `path` is relative (Linux, macOS), or an entry of its list is malformed (no trailing slash, a wildcard)",
		Says: map[string][]string{
			Chromium.ID: {"Specified native messaging host not found."},
			Firefox.ID:  {"No such native application " + HostName},
		},
		Fix:  "`gnosis-host install --browsers <browser>`",
		Rows: "manifest, manifest name, manifest type, manifest path, manifest allowed_origins",
	}
	FaultNotAllowed = Fault{
		ID:    "not-allowed",
		Cause: "the manifest does not list this extension (`allowed_origins`, Firefox: `allowed_extensions`), e.g. an unpacked copy with another id",
		Says: map[string][]string{
			Chromium.ID: {"Access to the specified native messaging host is forbidden."},
			Firefox.ID:  {"No such native application " + HostName},
		},
		Fix:  "`gnosis-host install --extension-id <id>` (the id the browser's extensions page shows)",
		Rows: "manifest allowed_origins, manifest allowed_extensions",
	}
	FaultBinaryGone = Fault{
		ID:    "binary-gone",
		Cause: "the host is registered, but the program its manifest names was moved or deleted",
		Says: map[string][]string{
			Chromium.ID: {"Specified native messaging host not found."},
			Firefox.ID:  {"An unexpected error occurred"},
		},
		Fix:  "install again: `make install` in a source checkout, or `gnosis-host install` from the release you downloaded",
		Rows: "host binary",
	}
	FaultCannotStart = Fault{
		ID:    "cannot-start",
		Cause: "the program is there but the system cannot start it: not executable, a folder, or built for another system",
		Says: map[string][]string{
			Chromium.ID:              {"Native host has exited.", "Error when communicating with the native messaging host."},
			Chromium.ID + "/windows": {"Failed to start native messaging host."},
			Firefox.ID:               {"An unexpected error occurred"},
		},
		Fix:  "`chmod +x` the program the manifest names, or install again",
		Rows: "host binary, self-test",
	}
	FaultExited = Fault{
		ID:    "exited",
		Cause: "the host started and stopped before answering (a crash, or a wrapper that exits)",
		Says: map[string][]string{
			Chromium.ID: {"Native host has exited."},
			Firefox.ID:  nil,
		},
		Fix:  "`gnosis-host doctor`; the host's log is `gnosis/gnosis-host.log` in the user cache folder",
		Rows: "self-test",
	}
	FaultStream = Fault{
		ID:    "stream",
		Cause: "the host wrote something on stdout that is not a message, or a message over 1 MiB; gnosis-host never does (a bug, or a wrapper script that prints)",
		Says: map[string][]string{
			Chromium.ID: {"Error when communicating with the native messaging host."},
			Firefox.ID:  {"Native application tried to send a message of N bytes, which exceeds the limit of 1048576 bytes."},
		},
		Fix:  "`gnosis-host report`, and file a bug with its text",
		Rows: "self-test",
	}
)

// Faults lists every fault, in the order of README's table.
var Faults = []Fault{FaultNotRegistered, FaultBadManifest, FaultNotAllowed, FaultBinaryGone, FaultCannotStart, FaultExited, FaultStream}

// Messages is what a browser of family fam on goos tells the extension.
func (f Fault) Messages(fam Family, goos string) []string {
	if m, ok := f.Says[fam.ID+"/"+goos]; ok {
		return m
	}
	return f.Says[fam.ID]
}

// says quotes, for a doctor row, what browser b on goos tells the extension
// for fault f.
func says(b Browser, goos string, f Fault) string {
	m := f.Messages(b.Family, goos)
	if len(m) == 0 {
		return b.Name + " closes the connection without a message"
	}
	return b.Name + " says " + quoteAll(m)
}

// quoteAll joins messages as "a" or "b".
func quoteAll(m []string) string {
	q := make([]string, len(m))
	for i, s := range m {
		q[i] = `"` + s + `"`
	}
	return strings.Join(q, " or ")
}

// FaultTable is the faults as a Markdown table, for README.
func FaultTable() string {
	var b strings.Builder
	b.WriteString("| what is wrong | Chrome, Chromium, Edge, Brave, Vivaldi show | Firefox shows | fix | doctor row |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, f := range Faults {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", f.Cause, mdMessages(f, Chromium), mdMessages(f, Firefox), f.Fix, f.Rows)
	}
	return b.String()
}

// mdMessages is the family's messages for a table cell, with any
// per-system message after them.
func mdMessages(f Fault, fam Family) string {
	cell := "no message: the connection closes"
	if m := f.Says[fam.ID]; len(m) > 0 {
		cell = quoteAll(m)
	}
	for _, goos := range []string{"windows", "darwin", "linux"} {
		if m, ok := f.Says[fam.ID+"/"+goos]; ok {
			cell += fmt.Sprintf(" (%s: %s)", systemName(goos), quoteAll(m))
		}
	}
	return cell
}

// systemName is how people call goos.
func systemName(goos string) string {
	switch goos {
	case "windows":
		return "Windows"
	case "darwin":
		return "macOS"
	}
	return "Linux"
}

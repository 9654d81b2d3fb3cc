package mcpprovider

import (
	"regexp"
	"strings"
)

// headline picks, from what a server wrote on stderr before it failed, the
// line that says what went wrong, so that a provider's error (health,
// providers.check) quotes "Error: Cannot find module './x'" rather than the
// runtime's sign-off ("Node.js v20.20.2") or a stack frame that happens to
// come last. It is the last line that reads as an error ("Error: …",
// "TypeError: …", "error: …", "fatal: …", "panic: …", "Cannot find module
// …"), else the last line that is not noise (a stack frame, a runtime's
// version banner, a bracket), else "".
func headline(stderr string) string {
	lines := strings.Split(strings.ReplaceAll(stderr, "\r\n", "\n"), "\n")
	fallback := ""
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || noise.MatchString(l) {
			continue
		}
		if telling.MatchString(l) {
			return l
		}
		if fallback == "" {
			fallback = l
		}
	}
	return fallback
}

// telling matches a line that says what failed, in the words of common
// runtimes and tools (Node.js, Python, Go, Rust, shells).
var telling = regexp.MustCompile(`^(?:(?:[A-Za-z_][\w.]*)?(?:Error|Exception)\b|(?i:error|fatal|panic|failed|cannot|can't|could not|unable to)\b)` +
	`|Cannot find module|command not found|No such file or directory|Permission denied|not found`)

// noise matches a line that never says what failed: stack frames, runtime
// banners, the lines around a thrown object.
var noise = regexp.MustCompile(`^(?:at |Node\.js v\d|\^+$|throw\b|[{}\[\]()]+,?$|code: |requireStack|Require stack:|- /|File ".*", line \d|` +
	`Traceback \(most recent call last\)|goroutine \d+ \[|\S+\.go:\d+|created by |exit status \d+$|npm (?:ERR! )?(?:A complete log|notice))`)

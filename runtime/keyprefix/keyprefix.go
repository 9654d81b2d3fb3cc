// Package keyprefix lists the prefixes that begin the API keys and tokens
// services issue (sk-, ghp_, xoxb-, AKIA, hf_, ...), so that every place
// that looks for keys in text looks for the same ones: the relay's test of
// header values (host/relay), the log redaction (runtime.RedactText) and,
// checked by its unit test, the extension's activity log
// (extension/bridge/core/redact.js). The list is prefixes.txt.
package keyprefix

import (
	_ "embed"
	"strings"
)

//go:embed prefixes.txt
var list string

// All are the prefixes, case-sensitive, in the order prefixes.txt gives
// them.
var All = parse(list)

// parse reads one prefix a line; text after # and blank lines are skipped.
func parse(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

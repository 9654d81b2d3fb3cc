// Package shellquote writes a command as one would type it in this
// system's shell (sh, or cmd.exe on Windows), for the advice the host gives:
// "run it by hand: ...", "chmod +x ...". Both the provider check
// (host/providers) and doctor (host/register) quote through it, so a path
// with a space reads the same in both.
package shellquote

import "strings"

// Arg is s quoted for the shell of goos when it holds spaces or characters
// that shell would read: in double quotes on Windows, in single quotes
// elsewhere (a single quote inside closes the quoting, is written escaped
// and reopens it).
func Arg(goos, s string) string {
	if goos == "windows" {
		if s != "" && !strings.ContainsAny(s, " \t\"&|;()<>^%") {
			return s
		}
		return `"` + s + `"`
	}
	if s != "" && !strings.ContainsAny(s, " \t\"'\\$`&|;()<>*?!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Args is each of as quoted by Arg.
func Args(goos string, as []string) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = Arg(goos, a)
	}
	return out
}

// Line is cmd and its args as one line to type in the shell of goos.
func Line(goos, cmd string, args []string) string {
	return strings.Join(append([]string{Arg(goos, cmd)}, Args(goos, args)...), " ")
}

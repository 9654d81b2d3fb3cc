package main

import (
	"fmt"
	"os/exec"
	"sort"
	"strings"
)

// What each package needs besides Go, checked before anything is built so
// that a missing tool is named at once, with the command that installs it,
// rather than after minutes of cross-building.

// prerequisite is a program a package kind needs.
type prerequisite struct {
	program string // looked up on PATH
	apt     string // the Debian package that has it
}

// prerequisites are the programs each kind needs (nfpm, for the .deb and
// the .rpm, runs as a Go tool and needs only Go and the module proxy once).
var prerequisites = map[string][]prerequisite{
	"msi": {{"wixl", "wixl"}, {"msibuild", "msitools"}},
}

// kindNames word each kind for a person.
var kindNames = map[string]string{"msi": "the MSI", "deb": "the .deb", "rpm": "the .rpm", "zip": "the zips",
	"chrome": "the Chrome zip", "chrome-store": "the Chrome Web Store zip", "firefox": "the Firefox .xpi"}

// lookPath finds a program (a variable, for tests).
var lookPath = exec.LookPath

// unmetPrerequisites returns, for each kind asked for whose programs are
// missing, what is missing and the command that installs it.
func unmetPrerequisites(kinds map[string]bool) map[string]string {
	out := map[string]string{}
	for kind, needs := range prerequisites {
		if !kinds[kind] {
			continue
		}
		var missing, apt []string
		for _, n := range needs {
			if _, err := lookPath(n.program); err != nil {
				missing = append(missing, n.program)
				if !contains(apt, n.apt) {
					apt = append(apt, n.apt)
				}
			}
		}
		if len(missing) > 0 {
			out[kind] = fmt.Sprintf("%s needs %s, not found on PATH: install with sudo apt-get install %s (or run tests/setup.sh)",
				kindNames[kind], strings.Join(missing, " and "), strings.Join(apt, " "))
		}
	}
	return out
}

// sortedKeys is m's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

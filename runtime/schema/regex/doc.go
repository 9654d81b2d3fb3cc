// Package regex compiles and matches ECMA-262 regular expressions with the
// "u" flag, the dialect JSON Schema's "pattern", "patternProperties" and
// "format": "regex" name, and nothing else: a text that is not a pattern
// of ECMA-262's grammar (11th edition, the one JSON Schema 2020-12 cites)
// with the u flag is refused with the offset and the reason, so a .NET,
// Python or PCRE construct ((?i), (?#…), (?>…), \A, \z, (?P<n>…)) never
// takes a meaning ECMA-262 does not give it.
//
// A match is only ever asked whether it exists (patterns are not anchored
// and have no flags), and every match runs in steps counted against a
// Budget, never in wall time, so the same value gets the same verdict on a
// loaded machine or an idle one. A pattern with no lookaround and no
// backreference runs on a linear-time engine (pike.go: a Thompson NFA
// simulation, at most one thread per instruction, so a step per
// instruction and input character at most); the others run on a
// backtracking engine (backtrack.go) that follows the specification's
// matcher semantics, and may use the whole budget. Both engines read the
// same parsed tree (parse.go) and the same character sets (class.go), so
// they cannot disagree on what a character class or an escape means.
//
// Input is a Go string: UTF-8, read as code points, as the u flag reads a
// JavaScript string. A lone surrogate cannot occur in it (JSON decoding
// replaces one with U+FFFD), so a pattern's lone-surrogate escapes match
// nothing.
package regex

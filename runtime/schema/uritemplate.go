package schema

import (
	"strings"
	"unicode/utf8"
)

// validURITemplate is RFC 6570's URI-Template: literals (with the
// apostrophe, as the errata and the suite read it) and expressions
// "{" [operator] varspec *("," varspec) "}", a varspec a variable name
// with an optional prefix (":" 1 to 9999) or explode ("*") modifier.
func validURITemplate(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 || !validExpression(s[i+1:i+end]) {
				return false
			}
			i += end + 1
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 3
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !isUCSChar(r) && !isIPrivate(r) {
				return false
			}
			i += n
		case c <= ' ' || c == 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0:
			return false
		default:
			i++
		}
	}
	return true
}

func validExpression(e string) bool {
	if e != "" && strings.IndexByte("+#./;?&", e[0]) >= 0 {
		e = e[1:]
	}
	for _, spec := range strings.Split(e, ",") {
		name, mod := spec, ""
		if i := strings.IndexAny(spec, ":*"); i >= 0 {
			name, mod = spec[:i], spec[i:]
		}
		if !validVarName(name) {
			return false
		}
		switch {
		case mod == "" || mod == "*":
		case mod[0] == ':':
			n := mod[1:]
			if n == "" || len(n) > 4 || n[0] == '0' || !allIn(n, "0123456789") {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// validVarName is varchar *(["."] varchar), a varchar a letter, digit,
// "_" or a percent-encoding.
func validVarName(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case !isAlnum(c) && c != '_' && c != '.':
			return false
		}
	}
	return true
}

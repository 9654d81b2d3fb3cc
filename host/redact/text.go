package redact

import (
	"regexp"
	"strings"

	"github.com/gnosis/gnosis/runtime"
)

// Text masks what reads as a credential in free text, where no known value
// says so (docs/security.md, "Secrets in free text", lists the rules): a
// quoted secret-named value up to its real closing quote (maskQuoted); the
// line after one that asks for a secret, and the body of a private key
// block (maskLines); runtime.RedactText's shapes; the value after a secret
// word in prose (maskProse).
func Text(t string) string {
	var st lineState
	return maskText(t, &st)
}

// maskText is Text for one piece of a stream of lines, st carrying what
// the lines before it said (a prompt, an open key block).
func maskText(t string, st *lineState) string {
	t = maskQuoted(t)
	t = maskLines(t, st)
	t = runtime.RedactText(t)
	return maskProse(t)
}

// quotedAssignment is a name, perhaps in quotes (JSON's "password", or
// \"password\" inside a JSON string), "=" or ":", and the opening quote of
// its value, perhaps escaped.
var quotedAssignment = regexp.MustCompile(`([A-Za-z0-9_.\-]+)(\\?["'])?\s*[=:]\s*(\\?)(["'])`)

// maskQuoted masks the quoted value of each secret-named assignment up to
// the quote that really closes it: not an escaped one ("pa\"ss"), nor one
// a value character follows (what a redaction that stopped at the escaped
// quote left: "[redacted]"ss"); and only to the end of the line when no
// quote closes it.
func maskQuoted(t string) string {
	ms := quotedAssignment.FindAllStringSubmatchIndex(t, -1)
	var b strings.Builder
	last := 0
	for _, m := range ms {
		if m[0] < last || !runtime.SecretName(t[m[2]:m[3]]) {
			continue
		}
		if m[4] < 0 && m[2] > 0 && (t[m[2]-1] == '"' || t[m[2]-1] == '\'') {
			continue // "Password:" then a quote: the label's own closing quote, no value
		}
		start := m[1]
		end := quotedEnd(t, start, t[m[8]], m[7] > m[6])
		if end <= start {
			continue
		}
		b.WriteString(t[last:start])
		b.WriteString(Redacted)
		last = end
	}
	if last == 0 {
		return t
	}
	b.WriteString(t[last:])
	return b.String()
}

// quotedEnd is where the value starting at t[i] and opened by quote q ends.
// escaped: the quotes are escaped ones (\"), the value being inside a JSON
// string; its own quotes are then escaped twice (\\\").
func quotedEnd(t string, i int, q byte, escaped bool) int {
	for j := i; j < len(t); j++ {
		switch t[j] {
		case '\n':
			return j
		case q:
		default:
			continue
		}
		n := 0 // backslashes before the quote
		for k := j - 1; k >= i && t[k] == '\\'; k-- {
			n++
		}
		end := j
		switch {
		case escaped && n%2 == 0:
			return j - n // the string holding the value ends
		case escaped && n%4 != 1, !escaped && n%2 == 1:
			continue // a quote within the value
		case escaped:
			end = j - 1
		}
		if j+1 == len(t) || strings.IndexByte(" \t\r\n,;:}])&|>\\", t[j+1]) >= 0 {
			return end
		}
	}
	return len(t)
}

// maskProse masks the value after a secret word in prose.
func maskProse(t string) string {
	return prose.ReplaceAllStringFunc(t, func(m string) string {
		sub := prose.FindStringSubmatch(m)
		value := sub[2]
		if value == Redacted || strings.HasPrefix(value, Redacted) || plainWord(value) {
			return m
		}
		return sub[1] + Redacted
	})
}

// secretWords are the words that say a secret follows, as a regular
// expression: password, passphrase, secret, token, api key, access key,
// private key, session id, cookie, credentials.
const secretWords = `(?:pass(?:word|wd|phrase)|pwd|secret|token|api[ _-]?key|access[ _-]?key|private[ _-]?key|session[ _-]?id|cookie|credentials?)`

// prose is a secret word, an optional connector ("is", "was", "=", ":"),
// and the value: everything up to whitespace, a quote, a backslash or a
// separator.
var prose = regexp.MustCompile(`(?i)(\b` + secretWords + `(?:\s+(?:is|was|of|=|:))?\s*[=:]?\s+)([^\s"'\\,;]+)`)

// prompt is a line that ends asking for a secret: a secret word, perhaps
// "for" and what it is for, then ":" or "=" or "is": "Password:", "Enter
// passphrase for key '/home/ann/.ssh/id_ed25519':", "the token is".
var prompt = regexp.MustCompile(`(?i)\b` + secretWords + `(?:\s+for\s+\S.{0,120}?)?(?:\s+(?:is|was)|\s*[=:])\s*$`)

// plainWord is a value that reads as prose, not as a secret: a short
// lower-case word ("token expired", "password required", "cookie jar").
func plainWord(v string) bool {
	if len(v) > 12 {
		return false
	}
	for _, c := range v {
		if (c < 'a' || c > 'z') && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// lineState is what the lines so far say about the next one.
type lineState struct {
	prompt   bool // the last line that was not blank asked for a secret
	keyBlock bool // a private key block is open
}

// Private key blocks: PEM ("-----BEGIN OPENSSH PRIVATE KEY-----", RSA, EC,
// ENCRYPTED, PGP's "PRIVATE KEY BLOCK"), SSH2's "---- BEGIN SSH2
// ENCRYPTED PRIVATE KEY ----", PuTTY's "Private-Lines: 14", and an OpenSSH
// key's body on its own (base64 of "openssh-key-v1").
var (
	keyBegin     = regexp.MustCompile(`-{4,5} ?BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}|Private-Lines: *\d+`)
	keyEnd       = regexp.MustCompile(`-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}`)
	keyHeader    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*: `)
	opensshMagic = "b3BlbnNzaC1rZXktdjE"
)

// maskLines applies the rules that follow lines: the line after a prompt
// is masked whole (unless it is a plain word), and a private key block's
// body is masked line by line up to its end marker (or the first line
// that cannot be part of one).
func maskLines(t string, st *lineState) string {
	lines := strings.SplitAfter(t, "\n")
	changed := false
	for i, l := range lines {
		body := strings.TrimRight(l, "\r\n")
		if m := st.line(body); m != body {
			lines[i], changed = m+l[len(body):], true
		}
	}
	if !changed {
		return t
	}
	return strings.Join(lines, "")
}

// line masks one line (without its end) and updates st.
func (st *lineState) line(l string) string {
	trimmed := strings.TrimSpace(l)
	indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
	switch {
	case st.keyBlock:
		if e := keyEnd.FindStringIndex(l); e != nil {
			st.keyBlock = false
			if strings.TrimSpace(l[:e[0]]) != "" {
				l = indent + Redacted + l[e[0]:]
			}
			return l
		}
		if keyBody(trimmed) {
			if trimmed == "" {
				return l
			}
			return indent + Redacted
		}
		st.keyBlock = false
	case st.prompt && trimmed != "":
		st.prompt = false
		if !plainWord(trimmed) {
			return indent + Redacted
		}
	}
	if b := keyBegin.FindStringIndex(l); b != nil {
		rest := l[b[1]:]
		if e := keyEnd.FindStringIndex(rest); e != nil {
			if strings.TrimSpace(rest[:e[0]]) != "" {
				l = l[:b[1]] + Redacted + rest[e[0]:]
			}
		} else {
			if n := base64Run(rest); strings.TrimSpace(rest[:n]) != "" {
				l = l[:b[1]] + Redacted + rest[n:]
			}
			st.keyBlock = true
		}
	} else if j := strings.Index(l, opensshMagic); j >= 0 {
		l, st.keyBlock = l[:j]+Redacted+l[j+base64Run(l[j:]):], true
	}
	if trimmed != "" {
		st.prompt = !st.keyBlock && prompt.MatchString(l)
	}
	return l
}

// base64Run is the length of the run of base64 characters and spaces that
// begins s.
func base64Run(s string) int {
	n := 0
	for n < len(s) && (base64Char(s[n]) || s[n] == ' ' || s[n] == '\t') {
		n++
	}
	return n
}

// keyBody reports whether a line (trimmed) can be part of a key block's
// body: blank, base64 only, or a header ("Proc-Type: 4,ENCRYPTED",
// "DEK-Info: ...", "Comment: ...", PuTTY's "Private-MAC: ...").
func keyBody(trimmed string) bool {
	if keyHeader.MatchString(trimmed) {
		return true
	}
	for i := 0; i < len(trimmed); i++ {
		if !base64Char(trimmed[i]) {
			return false
		}
	}
	return true
}

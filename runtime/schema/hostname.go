package schema

import (
	"strings"
	"unicode"

	"golang.org/x/net/idna"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// hostnameProfile decodes and checks an A-label ("xn--...") as IDNA 2008
// registration does (RFC 5891): valid Punycode, code points IDNA 2008
// allows, no leading combining mark, the joiner rules (CONTEXTJ), the
// bidi rule and the hyphen rules. contextOK adds what it leaves out: the
// CONTEXTO rules and the exceptions of RFC 5892.
var hostnameProfile = idna.New(idna.ValidateForRegistration(), idna.StrictDomainName(true), idna.BidiRule(),
	idna.CheckJoiners(true), idna.CheckHyphens(true), idna.ValidateLabels(true))

// validHostname is RFC 1123's host name (dot-separated labels of letters,
// digits and inner hyphens, each at most 63 bytes, 253 in all), each
// A-label of which must also be a valid IDNA 2008 label.
func validHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	aLabels := false
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if !isAlnum(label[i]) && label[i] != '-' {
				return false
			}
		}
		if len(label) >= 4 && label[2] == '-' && label[3] == '-' {
			// RFC 5891 4.2.3.1: "--" in the third and fourth places is
			// reserved for A-labels.
			if !strings.EqualFold(label[:4], "xn--") || !validALabel(label) {
				return false
			}
			aLabels = true
		}
	}
	if aLabels {
		// The bidi rule applies to every label of a domain that has a
		// right-to-left label, so the whole name is checked once more.
		if _, err := hostnameProfile.ToUnicode(strings.ToLower(s)); err != nil {
			return false
		}
	}
	return true
}

// validALabel decodes an A-label and checks the U-label it stands for.
func validALabel(label string) bool {
	u, err := hostnameProfile.ToUnicode(strings.ToLower(label))
	return err == nil && norm.NFC.IsNormalString(u) && contextOK([]rune(u))
}

// contextOK applies RFC 5892's derivation of the code points a U-label
// may hold (the x/net/idna tables follow UTS 46, which lets through some
// that IDNA 2008 disallows, such as U+00A1), its exceptions and its
// CONTEXTO rules (appendix A).
func contextOK(label []rune) bool {
	arabic, extended := false, false
	for i, r := range label {
		switch {
		case !idna2008Allowed(r):
			return false
		case r == 0x0640 || r == 0x07FA || r == 0x302E || r == 0x302F || (r >= 0x3031 && r <= 0x3035) || r == 0x303B:
			return false
		case r == 0x00B7: // MIDDLE DOT: between two "l"s
			if i == 0 || i == len(label)-1 || label[i-1] != 'l' || label[i+1] != 'l' {
				return false
			}
		case r == 0x0375: // GREEK KERAIA: before a Greek letter
			if i == len(label)-1 || !unicode.Is(unicode.Greek, label[i+1]) {
				return false
			}
		case r == 0x05F3 || r == 0x05F4: // HEBREW GERESH, GERSHAYIM: after a Hebrew letter
			if i == 0 || !unicode.Is(unicode.Hebrew, label[i-1]) {
				return false
			}
		case r == 0x30FB: // KATAKANA MIDDLE DOT: in a label with Hiragana, Katakana or Han
			if !hasKana(label) {
				return false
			}
		case r >= 0x0660 && r <= 0x0669:
			arabic = true
		case r >= 0x06F0 && r <= 0x06F9:
			extended = true
		}
	}
	return !(arabic && extended)
}

// pvalidExceptions are RFC 5892 2.6's code points PVALID whatever their
// category; contextCodePoints those its CONTEXTJ and CONTEXTO rules
// decide (contextOK and x/net/idna's joiner check).
var pvalidExceptions = map[rune]bool{0x00DF: true, 0x03C2: true, 0x06FD: true, 0x06FE: true, 0x0F0B: true, 0x3007: true}

func contextCodePoint(r rune) bool {
	return r == 0x200C || r == 0x200D || r == 0x00B7 || r == 0x0375 || r == 0x05F3 || r == 0x05F4 || r == 0x30FB ||
		(r >= 0x0660 && r <= 0x0669) || (r >= 0x06F0 && r <= 0x06F9)
}

var foldCase = cases.Fold()

// idna2008Allowed is RFC 5892's PVALID or CONTEXT: an ASCII letter, digit
// or hyphen, an exception, a context code point, or a letter, digit or
// mark (Ll, Lo, Lm, Nd, Mn, Mc) that NFKC and case folding leave as it is.
func idna2008Allowed(r rune) bool {
	switch {
	case r < 0x80:
		return isAlnum(byte(r)) || r == '-'
	case pvalidExceptions[r] || contextCodePoint(r):
		return true
	case r == 0x0640 || r == 0x07FA || r == 0x302E || r == 0x302F || (r >= 0x3031 && r <= 0x3035) || r == 0x303B:
		return false
	case !unicode.In(r, unicode.Ll, unicode.Lo, unicode.Lm, unicode.Nd, unicode.Mn, unicode.Mc):
		return false
	}
	s := string(r)
	return norm.NFKC.String(foldCase.String(norm.NFKC.String(s))) == s
}

func hasKana(label []rune) bool {
	for _, r := range label {
		if r != 0x30FB && (unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Han, r)) {
			return true
		}
	}
	return false
}

// validIDNHostname is an internationalized host name (RFC 5890): labels
// that are LDH labels, A-labels or U-labels valid under IDNA 2008, dots
// or ideographic full stops between them, 253 bytes in all once encoded.
func validIDNHostname(s string) bool {
	s = strings.NewReplacer("\u3002", ".", "\uff0e", ".", "\uff61", ".").Replace(s)
	if s == "" {
		return false
	}
	if isASCII(s) {
		return validHostname(s)
	}
	// The whole name at once, so that the bidi rule sees every label.
	a, err := hostnameProfile.ToASCII(s)
	if err != nil {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if !isASCII(label) && (!norm.NFC.IsNormalString(label) || !contextOK([]rune(label))) {
			return false
		}
	}
	return validHostname(a)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

package runtime

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mtibben/confusables"
)

// A tool's name goes into the capability prompt, the approval window and
// the grant list, where the user must be able to read it for what it is.
// CheckToolName refuses a name that could hide or fake text there (the
// runtime skips such tools; policy.set refuses grants that name one):
//
//   - control and format characters (newlines, bidi overrides, zero-width
//     characters), private-use and unassigned code points;
//   - default-ignorable code points (U+034F, variation selectors such as
//     U+FE0F, U+115F, U+1160, U+3164 and U+FFA0, the Hangul fillers), which
//     render as nothing;
//   - U+2800 (braille pattern blank) and every space but the ASCII one;
//   - an ASCII space at the start or the end, or two in a row: a single
//     space between visible characters is accepted ("greet (structured)"),
//     as real servers use them and they do no harm inside a JSON string;
//   - the empty name, a name over maxToolName bytes, invalid UTF-8.
//
// Names that pass are still compared with each other (confusableNames).
func CheckToolName(name string) error {
	switch {
	case name == "":
		return errors.New("empty tool name")
	case len(name) > maxToolName:
		return fmt.Errorf("tool name longer than %d bytes", maxToolName)
	case !utf8.ValidString(name):
		return errors.New("tool name is not valid UTF-8")
	case strings.HasPrefix(name, " ") || strings.HasSuffix(name, " "):
		return errors.New("tool name starts or ends with a space")
	case strings.Contains(name, "  "):
		return errors.New("tool name has two spaces in a row")
	}
	for _, c := range name {
		if why := invisible(c); why != "" {
			return fmt.Errorf("tool name contains %U, %s", c, why)
		}
	}
	return nil
}

// maxToolName bounds a tool's name: names go into prompts and grant lists.
const maxToolName = 128

// invisible says why c cannot appear in a tool name, "" when it can.
func invisible(c rune) string {
	switch {
	case c == ' ':
		return ""
	case unicode.IsControl(c) || unicode.Is(unicode.Cf, c):
		return "a control or format character"
	case unicode.Is(unicode.Other_Default_Ignorable_Code_Point, c) || unicode.Is(unicode.Variation_Selector, c):
		return "a default-ignorable character that renders as nothing"
	case unicode.IsSpace(c) || unicode.Is(unicode.Zs, c):
		return "a space other than the ASCII space"
	case c == '\u2800':
		return "a blank character"
	case !unicode.IsGraphic(c):
		return "a private-use or unassigned character"
	}
	return ""
}

// confusableNames returns, for each name that looks like another of names
// (the same skeleton, Unicode TS #39 section 4: "сlick" with a Cyrillic
// "с" beside "click"), the other names it looks like. Every member of such
// a group is refused: the host cannot tell which one the user means.
func confusableNames(names []string) map[string][]string {
	bySkeleton := map[string][]string{}
	var order []string
	for _, n := range names {
		s := confusables.Skeleton(n)
		if _, seen := bySkeleton[s]; !seen {
			order = append(order, s)
		}
		bySkeleton[s] = append(bySkeleton[s], n)
	}
	out := map[string][]string{}
	for _, s := range order {
		group := bySkeleton[s]
		if len(group) < 2 {
			continue
		}
		for _, n := range group {
			for _, other := range group {
				if other != n {
					out[n] = append(out[n], other)
				}
			}
		}
	}
	return out
}

// confusableReason is the skip reason of a name that looks like others.
func confusableReason(others []string) string {
	quoted := make([]string, len(others))
	for i, o := range others {
		quoted[i] = strconv.QuoteToASCII(o)
	}
	return "tool name looks like " + strings.Join(quoted, ", ") + ", another tool of the same server"
}

// SkippedTool is a tool a provider listed that the runtime did not turn into
// a capability, and why. Health shows them.
type SkippedTool struct {
	// Tool is the name as sent, quoted in ASCII ("\u200bclick"), so an
	// invisible or look-alike character shows; cut at 200 bytes.
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
}

func skippedTool(name, reason string) SkippedTool {
	q := strconv.QuoteToASCII(name)
	if len(q) > 200 {
		q = q[:200] + "…"
	}
	return SkippedTool{Tool: q, Reason: reason}
}

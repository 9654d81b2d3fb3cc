package relay

import (
	"math"
	"strings"

	"github.com/gnosis/gnosis/runtime/keyprefix"
)

// A header value looks like a credential, whatever the header's name, when
// any of its tokens (runs of letters, digits and - _ . + / = ~) does:
//
//   - a token is an HTTP authentication scheme followed by a space and
//     another token ("Bearer x", "Basic x", "Digest ...", "Token x",
//     "Negotiate x", ...), any case;
//   - a token begins with a key prefix services issue (keyprefix.All: sk-,
//     ghp_, github_pat_, xoxb-, glpat-, AKIA, AIza, hf_, ...) and has at
//     least minAfterPrefix characters after it;
//   - a token is a JWT: three base64url parts joined by dots, the first
//     beginning "eyJ" (the encoding of `{"`);
//   - a token is long and random-looking: at least minRandomLen characters,
//     letters and digits both, and a Shannon entropy of at least
//     minEntropyBits bits a character (an API key, an HMAC, a session id).
//
// The test is for debug logs, where hiding a harmless value (a request id)
// costs little and showing a key costs a lot: it errs towards hiding.
func credentialLike(v string) bool {
	ts := tokens(v)
	for i, t := range ts {
		if prefixedKey(t.text) || jwt(t.text) || random(t.text) {
			return true
		}
		if i+1 < len(ts) && t.end < len(v) && v[t.end] == ' ' && scheme(t.text) {
			return true
		}
	}
	return false
}

func scheme(word string) bool {
	for _, s := range authSchemes {
		if strings.EqualFold(word, s) {
			return true
		}
	}
	return false
}

// authSchemes are the HTTP authentication schemes (IANA registry and common
// vendor ones), lower case.
var authSchemes = []string{"bearer", "basic", "digest", "token", "negotiate", "ntlm", "hoba", "mutual",
	"vapid", "scram-sha-1", "scram-sha-256", "aws4-hmac-sha256", "apikey", "api-key", "key", "dpop", "gnap", "privatetoken", "sharedkey"}

// minAfterPrefix is how many token characters must follow a key prefix: a
// word such as "sk-1" is not a key, "sk-ant-api03-..." is.
const minAfterPrefix = 6

func prefixedKey(t string) bool {
	for _, p := range keyprefix.All {
		if strings.HasPrefix(t, p) && len(t)-len(p) >= minAfterPrefix {
			return true
		}
	}
	return false
}

func jwt(t string) bool {
	parts := strings.Split(t, ".")
	return len(parts) == 3 && strings.HasPrefix(parts[0], "eyJ") && len(parts[1]) > 0
}

// Bounds of the random-looking token.
const (
	minRandomLen   = 20
	minEntropyBits = 3.0
)

func random(t string) bool {
	if len(t) < minRandomLen {
		return false
	}
	var letters, digits bool
	counts := map[rune]int{}
	for _, c := range t {
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters = true
		}
		counts[c]++
	}
	if !letters || !digits {
		return false
	}
	var h float64
	for _, n := range counts {
		p := float64(n) / float64(len(t))
		h -= p * math.Log2(p)
	}
	return h >= minEntropyBits
}

// token is a run of the characters keys are written with, and where it
// ends in the value.
type token struct {
	text string
	end  int
}

// tokens splits v into its tokens.
func tokens(v string) []token {
	var out []token
	start := -1
	for i := 0; i <= len(v); i++ {
		in := i < len(v) && tokenByte(v[i])
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, token{v[start:i], i})
			start = -1
		}
	}
	return out
}

func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.+/=~", c) >= 0
}

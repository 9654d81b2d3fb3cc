package runtime

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/gnosis/gnosis/runtime/keyprefix"
)

// Redacted stands in for a secret in logged values.
const Redacted = "[redacted]"

// maxRedactedJSON bounds the text RedactJSON keeps from all values together:
// past it the remaining members are counted, not shown.
const maxRedactedJSON = 2048

// maxDecodedJSON bounds the input RedactJSON decodes: larger arguments
// (images, files) are only counted.
const maxDecodedJSON = 1 << 20

// RedactJSON returns the JSON text raw made fit for a debug log, as JSON
// text: values of fields whose name looks secret (password, token, apiKey,
// Authorization, cookie, ... at any depth) become Redacted; every string,
// key included, goes through RedactText; strings are cut to maxLoggedValue
// bytes and the whole to about maxRedactedJSON; input above maxDecodedJSON
// is replaced by its size. Input that is not one JSON
// value is redacted and cut as text and returned as a JSON string.
func RedactJSON(raw []byte) json.RawMessage {
	if len(raw) > maxDecodedJSON {
		return encode("(" + strconv.Itoa(len(raw)) + " bytes, not shown)")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.Decode(new(any)) != io.EOF {
		return encode(truncate(RedactText(string(raw)), maxLoggedValue))
	}
	r := redactor{left: maxRedactedJSON}
	return encode(r.value(v))
}

// minSecretValue is the shortest secret value RedactMessage masks wherever
// it appears: shorter ones would mask ordinary letters and digits.
const minSecretValue = 3

// RedactMessage returns text (an error message) fit for a log: the values
// that secret-named fields of the JSON context carry (the arguments or
// params the message may quote, as a schema violation does) are masked
// wherever they appear, then RedactText masks what is obvious in the rest.
func RedactMessage(text string, context []byte) string {
	var s Secrets
	s.Add(SecretValues(context)...)
	return s.Redact(text)
}

// Secrets is a set of values known to be secret (those a configuration or
// a request holds under secret names, or in a server's environment), masked
// wherever a text quotes them: an error message, a server's stderr, a log
// line. The zero value is an empty set.
type Secrets struct{ values []string }

// Add records values, each also as JSON text quotes it (a Windows path's
// backslashes doubled); those shorter than minSecretValue are left out,
// since masking them would mask ordinary letters and digits.
func (s *Secrets) Add(values ...string) {
	for _, v := range values {
		if len(v) < minSecretValue {
			continue
		}
		s.values = append(s.values, v)
		if q := string(encode(v)); q[1:len(q)-1] != v {
			s.values = append(s.values, q[1:len(q)-1])
		}
	}
	// Longest first, so a value that contains another is masked whole.
	sort.SliceStable(s.values, func(i, j int) bool { return len(s.values[i]) > len(s.values[j]) })
}

// Redact masks every recorded value in text, then what RedactText finds.
func (s *Secrets) Redact(text string) string {
	for _, v := range s.values {
		text = strings.ReplaceAll(text, v, Redacted)
	}
	return RedactText(text)
}

// SecretValues returns the scalar values (strings and numbers, as written)
// under secret-named fields (SecretName) of the JSON text raw, at any depth:
// a request's "password", a header map's "Authorization", an env map's
// "OPENAI_API_KEY". Text larger than 1 MiB or not JSON gives none. It is the
// one walk behind RedactMessage and the host's set of known secrets.
func SecretValues(raw []byte) []string {
	if len(raw) == 0 || len(raw) > maxDecodedJSON {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	var out []string
	var walk func(v any, secret bool)
	walk = func(v any, secret bool) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				walk(e, secret || SecretName(k))
			}
		case []any:
			for _, e := range v {
				walk(e, secret)
			}
		case string:
			if secret {
				out = append(out, v)
			}
		case json.Number:
			if secret {
				out = append(out, string(v))
			}
		}
	}
	walk(v, false)
	return out
}

// encode marshals v without HTML escaping (logs are read by people).
func encode(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return json.RawMessage(`"` + Redacted + `"`)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// redactor walks a decoded value, spending a budget of shown text.
type redactor struct{ left int }

func (r *redactor) value(v any) any {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(map[string]any, len(v))
		for i, k := range keys {
			if r.left <= 0 {
				out["…"] = strconv.Itoa(len(keys)-i) + " more"
				break
			}
			shown := r.str(k)
			if SecretName(k) {
				out[shown] = Redacted
				continue
			}
			out[shown] = r.value(v[k])
		}
		return out
	case []any:
		out := make([]any, 0, len(v))
		for i, e := range v {
			if r.left <= 0 {
				out = append(out, "… "+strconv.Itoa(len(v)-i)+" more")
				break
			}
			out = append(out, r.value(e))
		}
		return out
	case string:
		return r.str(v)
	case json.Number:
		r.left -= len(v)
		return v
	default: // bool, nil
		r.left -= 4
		return v
	}
}

func (r *redactor) str(s string) string {
	s = truncate(RedactText(s), maxLoggedValue)
	r.left -= len(s) + 2
	return s
}

// secretPatterns find credentials in free text; each match is replaced by
// its replacement (which keeps the first submatches, if any, and masks the
// rest).
var secretPatterns = []struct {
	re   *regexp.Regexp
	with string
}{
	// Authorization: Bearer <token>, and bearer tokens anywhere in text.
	{regexp.MustCompile(`(?i)\b(bearer\s+)[A-Za-z0-9\-._~+/]+=*`), "${1}" + Redacted},
	// OpenAI- and Anthropic-style API keys (sk-..., sk-proj-..., sk-ant-...)
	// keep their prefix, so a reader sees which kind of key was there.
	{regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{8,}`), "sk-" + Redacted},
	// Every other key of a known prefix (GitHub, Slack, AWS, Google, model
	// APIs, ...: keyprefix.All), masked whole.
	{prefixedKey, Redacted},
	// JSON web tokens.
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*`), Redacted},
}

// prefixedKey is a key prefix of keyprefix.All at the start of a word,
// then at least 8 letters, digits, - or _, and any further parts joined by
// dots (SG.<id>.<secret>).
var prefixedKey = regexp.MustCompile(`\b(?:` + alternation(keyprefix.All) + `)[A-Za-z0-9_\-]{8,}(?:\.[A-Za-z0-9_\-]+)*`)

// alternation is the words of a regular expression alternation matching
// any of words literally, longest first.
func alternation(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = regexp.QuoteMeta(w)
	}
	sort.SliceStable(quoted, func(i, j int) bool { return len(quoted[i]) > len(quoted[j]) })
	return strings.Join(quoted, "|")
}

// assignment is "name=" or "name:" in text (query strings, headers,
// "password: hunter2", JSON-like "token": "..."), with an optional quote
// before and after the separator.
var assignment = regexp.MustCompile(`([A-Za-z0-9_.\-]+)["']?\s*[=:]\s*(["']?)`)

// authSchemes may precede a credential: "Authorization: Basic abc" masks both.
var authSchemes = []string{"basic ", "bearer ", "digest ", "token "}

// RedactText masks the secrets that are obvious in free text: bearer
// tokens, API keys of well-known shapes, and the values of secret-named
// parameters (key=, token=, password=, ...) as in query strings.
func RedactText(s string) string {
	s = maskAssignments(s)
	for _, p := range secretPatterns {
		s = p.re.ReplaceAllString(s, p.with)
	}
	return s
}

// maskAssignments masks the values of secret-named assignments in s.
func maskAssignments(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range assignment.FindAllStringSubmatchIndex(s, -1) {
		if m[0] < last || !SecretName(s[m[2]:m[3]]) {
			continue
		}
		end := valueEnd(s, m[1], s[m[4]:m[5]])
		if end == m[1] {
			continue
		}
		b.WriteString(s[last:m[1]])
		b.WriteString(Redacted)
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// valueEnd returns where the value starting at s[i] ends: at the closing
// quote if it was quoted, else at whitespace or a separator of query
// strings and lists. An auth scheme word in front belongs to the value.
func valueEnd(s string, i int, quote string) int {
	if quote != "" {
		if j := strings.Index(s[i:], quote); j >= 0 {
			return i + j
		}
		return len(s)
	}
	for _, scheme := range authSchemes {
		if len(s)-i > len(scheme) && strings.EqualFold(s[i:i+len(scheme)], scheme) {
			i += len(scheme)
			break
		}
	}
	j := i
	for j < len(s) && !strings.ContainsRune(" \t\r\n&;,\"'#<>()[]{}", rune(s[j])) {
		j++
	}
	return j
}

// secretParts are name fragments that mark a secret wherever they appear in
// a name's letters and digits (apiKey, X-Auth-Token, client_secret).
var secretParts = []string{
	"password", "passwd", "passphrase", "secret", "token", "apikey",
	"authorization", "cookie", "credential", "privatekey", "accesskey",
	"signature", "sessionid",
}

// secretWords mark a secret only as a whole word of a name: "key" and
// "api_key" are secret, "keyboard" and "monkey" are not.
var secretWords = map[string]bool{"key": true, "pwd": true, "pass": true, "auth": true}

// SecretName reports whether a field, parameter, header or variable name
// looks like it holds a secret, case-insensitively (apiKey, X-Auth-Token,
// OPENAI_API_KEY, client_secret; not keyboard or monkey).
func SecretName(name string) bool {
	words := nameWords(name)
	var joined strings.Builder
	for _, w := range words {
		if secretWords[w] {
			return true
		}
		joined.WriteString(w)
	}
	flat := joined.String()
	for _, p := range secretParts {
		if strings.Contains(flat, p) {
			return true
		}
	}
	return false
}

// nameWords splits a name into lower-case words at punctuation and at case
// changes: "X-Api-Key", "apiKey", "API_KEY" and "APIKey" all give api, key.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, c := range rs {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			flush()
			continue
		}
		if unicode.IsUpper(c) && len(cur) > 0 {
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, c)
	}
	flush()
	return words
}

package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/gnosis/gnosis/host/logging"
	"github.com/gnosis/gnosis/host/relay"
	grt "github.com/gnosis/gnosis/runtime"
)

// maxLogBytes bounds how much of the log's end a report reads.
const maxLogBytes = 64 << 10

func logTail(file string, n int) ([]string, error) { return logging.Tail(file, n, maxLogBytes) }

// configSection is the configuration file, redacted, as a section of the
// report, and the values it replaced (to be masked in the rest of the text).
// A file that is not valid JSON is not shown at all: its text may hold a
// secret where no structure says so.
func configSection(file string) (section string, values []string) {
	data, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file: the host runs with no provider.\n", nil
	case err != nil:
		return "Not readable: " + err.Error() + "\n", nil
	}
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return "Not valid JSON (" + err.Error() + "); its text is not shown, as it may hold secrets.\n", nil
	}
	r := configRedactor{}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r.value(doc, "")); err != nil {
		return "Not shown: " + err.Error() + "\n", r.values
	}
	return "```json\n" + out.String() + "```\n", r.values
}

// configRedactor walks a decoded configuration, replacing what may be
// secret and collecting what it replaced.
type configRedactor struct{ values []string }

// redacted records the scalars of v as secret and returns the mask.
func (r *configRedactor) redacted(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			r.redacted(e)
		}
	case []any:
		for _, e := range v {
			r.redacted(e)
		}
	case string:
		r.keep(v)
	case json.Number:
		r.keep(string(v))
	}
	return grt.Redacted
}

// keep records a replaced value to mask elsewhere, unless it is so common
// that masking it would hide ordinary text (true, a short number).
func (r *configRedactor) keep(v string) {
	switch {
	case v == "true" || v == "false" || v == "null":
	case len(v) < 6 && isDigits(v):
	default:
		r.values = append(r.values, v)
	}
}

// value is v with its secrets replaced; key is the name v is held under.
func (r *configRedactor) value(v any, key string) any {
	if key != "" && grt.SecretName(key) {
		return r.redacted(v)
	}
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			switch {
			case (key == "env" || strings.EqualFold(key, "headers")) && !isContainer(e):
				out[k] = r.redacted(e)
			default:
				out[k] = r.value(e, k)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			if key == "args" {
				out[i] = r.arg(e)
			} else {
				out[i] = r.value(e, "")
			}
		}
		return out
	case string:
		return relay.RedactURL(v)
	}
	return v
}

// flag is a command-line option's name: -x, --name or --name=.
var flag = regexp.MustCompile(`^(-[A-Za-z]|--[A-Za-z][A-Za-z0-9_-]*)(=|$)`)

// arg is a provider argument as the report shows it: an option's name
// stays, its value and any other argument are replaced.
func (r *configRedactor) arg(v any) any {
	s, ok := v.(string)
	if !ok {
		return r.redacted(v)
	}
	m := flag.FindStringSubmatch(s)
	switch {
	case m == nil:
		return r.redacted(s)
	case m[2] == "=":
		r.keep(s[len(m[0]):])
		return m[0] + grt.Redacted
	}
	return s
}

func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

func isDigits(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

package runtime

import (
	"encoding/json"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"
)

// maxLoggedValue bounds each argument value in the execute log line: calls
// carry text to type and images to paste, which have no place in a log.
const maxLoggedValue = 200

// logExecute writes the one line per execute: request id, capability,
// origin, duration, outcome ("ok" or the error code), truncated arguments.
func (r *Runtime) logExecute(c Call, start time.Time, err error) {
	var ev *zerolog.Event
	if err != nil {
		ev = r.log.Warn().Str("outcome", string(CodeOf(err))).Str("error", err.Error())
	} else {
		ev = r.log.Info().Str("outcome", "ok")
	}
	if !ev.Enabled() {
		return
	}
	if c.ID != "" {
		ev = ev.Str("id", c.ID)
	}
	if c.Origin != "" {
		ev = ev.Str("origin", c.Origin)
	}
	ev.Str("capability", c.Capability).
		Dur("duration", time.Since(start)).
		Dict("arguments", loggedArguments(c.Arguments)).
		Msg("execute")
}

func loggedArguments(raw json.RawMessage) *zerolog.Event {
	d := zerolog.Dict()
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		if len(raw) > 0 {
			d.Str("(not an object)", truncate(string(raw), maxLoggedValue))
		}
		return d
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d.Str(truncate(k, maxLoggedValue), truncate(string(m[k]), maxLoggedValue))
	}
	return d
}

// truncate cuts s to at most n bytes on a UTF-8 boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

package runtime

import (
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/runtime/wire"
)

// maxLoggedValue bounds each string shown in a debug log line: calls carry
// text to type and images to paste, which have no place in a log.
const maxLoggedValue = 200

// logExecute writes the one line per execute. At info (warn for a failure)
// it says what ran and how it went, never what it was given: request id,
// capability, origin, duration, outcome ("ok" or the error code) and the
// sizes of the arguments and of the result. Arguments and the error's text, which can carry
// what the user typed, are added only at debug level, redacted (RedactJSON,
// RedactMessage).
func (r *Runtime) logExecute(c Call, start time.Time, resultBytes int, err error) {
	var ev *zerolog.Event
	if err != nil {
		ev = r.log.Warn().Str("outcome", string(wire.CodeOf(err)))
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
	ev = ev.Str("capability", c.Capability).
		Dur("duration", time.Since(start)).
		Int("argumentBytes", len(c.Arguments))
	if err == nil {
		ev = ev.Int("resultBytes", resultBytes)
	}
	if r.log.GetLevel() <= zerolog.DebugLevel {
		if err != nil {
			ev = ev.Str("error", RedactMessage(err.Error(), c.Arguments))
		}
		if len(c.Arguments) > 0 {
			ev = ev.RawJSON("arguments", RedactJSON(c.Arguments))
		}
	}
	ev.Msg("execute")
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

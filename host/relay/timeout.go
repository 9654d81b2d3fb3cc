package relay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sync"
	"time"

	"github.com/gnosis/gnosis/runtime/wire"
)

// Defaults of the relay's waits on the upstream (docs/host-methods.md). A
// model that answers without streaming sends its headers only once the
// whole answer is written, which on a local CPU can take minutes; a
// streaming one sends a token every few hundred milliseconds.
const (
	DefaultResponseHeaderTimeout = 5 * time.Minute
	DefaultIdleTimeout           = 2 * time.Minute
)

// The causes a watch cancels its request with.
var (
	errNoHeaders = errors.New("no response headers in time")
	errIdle      = errors.New("no response bytes in time")
)

// watch bounds one upstream exchange: the status and headers must arrive
// within header of the request being sent, and then each read of the body
// must bring bytes within idle. Either failing cancels the exchange's
// context with its cause, which ends a RoundTrip or a Read blocked on a
// server that trickles or stalls. Time spent passing bytes on to the
// browser is not counted: the idle wait runs only while a read waits.
type watch struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	idle   time.Duration

	mu    sync.Mutex
	cause error // what the timer cancels with when it fires
	timer *time.Timer
}

func newWatch(parent context.Context, header, idle time.Duration) *watch {
	ctx, cancel := context.WithCancelCause(parent)
	w := &watch{ctx: ctx, cancel: cancel, idle: idle, cause: errNoHeaders}
	w.timer = time.AfterFunc(header, w.fire)
	return w
}

func (w *watch) fire() {
	w.mu.Lock()
	cause := w.cause
	w.mu.Unlock()
	w.cancel(cause)
}

// headers records that the status and headers are in: from now on each
// read of the body is bounded by idle.
func (w *watch) headers() {
	w.mu.Lock()
	w.cause = errIdle
	w.timer.Stop()
	w.mu.Unlock()
}

// stop ends the exchange and its timer.
func (w *watch) stop() {
	w.timer.Stop()
	w.cancel(context.Canceled)
}

// timedOut is the watch's cause when one of its waits ran out (and the
// request was not cancelled by the caller first), nil otherwise.
func (w *watch) timedOut() error {
	if c := context.Cause(w.ctx); errors.Is(c, errNoHeaders) || errors.Is(c, errIdle) {
		return c
	}
	return nil
}

// body wraps r so each read is bounded by the idle wait.
func (w *watch) body(r io.Reader) io.Reader { return watchedBody{r, w} }

type watchedBody struct {
	r io.Reader
	w *watch
}

func (b watchedBody) Read(p []byte) (int, error) {
	b.w.mu.Lock()
	b.w.timer.Reset(b.w.idle)
	b.w.mu.Unlock()
	n, err := b.r.Read(p)
	b.w.mu.Lock()
	b.w.timer.Stop()
	b.w.mu.Unlock()
	return n, err
}

// timeoutError is the TIMEOUT reply for a watch that ran out, its message
// naming the setting that bounds the wait.
func (r *Relay) timeoutError(u *url.URL, cause error, relayed int64, start time.Time) error {
	var msg string
	if errors.Is(cause, errNoHeaders) {
		msg = fmt.Sprintf("relay to %s: no response status and headers within %s (relay.responseHeaderTimeout in the host configuration)",
			redact(u), r.headerTimeout)
	} else {
		msg = fmt.Sprintf("relay to %s: the response sent nothing for %s after %d body bytes (relay.idleTimeout in the host configuration)",
			redact(u), r.idleTimeout, relayed)
	}
	r.log.Warn().Str("url", redact(u)).Dur("took", time.Since(start)).Int64("bytes", relayed).Msg("relay timed out: " + cause.Error())
	return &wire.Error{Code: wire.CodeTimeout, Message: msg}
}

package relay

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gnosis/gnosis/host/method"
	"github.com/gnosis/gnosis/runtime/wire"
	"github.com/rs/zerolog"
)

const (
	// DefaultMaxBytes bounds one relayed response body.
	DefaultMaxBytes = 64 << 20
	// pieceBytes bounds the text of one relay.data event: even fully
	// JSON-escaped (6 bytes a byte) it stays far below the 1 MiB frame limit.
	pieceBytes = 64 << 10
)

// Relay performs model requests for the extension.
type Relay struct {
	policy policy
	setup  error
	// transport makes single requests: fetch handles redirects itself,
	// which http.Client would follow or (for a Location that is not a URL)
	// fail on.
	transport *http.Transport
	log       zerolog.Logger
	maxBytes  int64
	hosts     map[string]string // names resolved without DNS (tests)
	// headerTimeout and idleTimeout bound the waits on the upstream (see watch).
	headerTimeout, idleTimeout time.Duration
}

// Option adjusts a Relay.
type Option func(*Relay)

// WithLogger sets where requests are logged. Info: method, URL without
// query, status, size, duration. Debug adds header names and query
// parameter names with credential values replaced. Bodies never.
func WithLogger(l zerolog.Logger) Option { return func(r *Relay) { r.log = l } }

// WithMaxBytes bounds a relayed response body.
func WithMaxBytes(n int64) Option { return func(r *Relay) { r.maxBytes = n } }

// New prepares a relay for cfg. A malformed allow list is remembered and
// reported by relay.fetch (NOT_CONFIGURED) so the host keeps serving.
//
// The relay connects directly: HTTP_PROXY and the like are ignored, because
// through a proxy the host could not judge the address the proxy connects
// to (docs/host-methods.md).
func New(cfg Config, opts ...Option) *Relay {
	r := &Relay{log: zerolog.Nop(), maxBytes: DefaultMaxBytes,
		headerTimeout: orDefault(time.Duration(cfg.ResponseHeaderTimeout), DefaultResponseHeaderTimeout),
		idleTimeout:   orDefault(time.Duration(cfg.IdleTimeout), DefaultIdleTimeout)}
	p, err := newPolicy(cfg.Allow)
	if err != nil {
		r.setup = &wire.Error{Code: wire.CodeNotConfigured, Message: err.Error()}
	}
	r.policy = p
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.Proxy = nil
	transport.DialContext = r.dial
	r.transport = transport
	for _, o := range opts {
		o(r)
	}
	return r
}

// Methods returns the relay.fetch protocol method (docs/host-methods.md).
func (r *Relay) Methods() method.Table {
	return method.Table{"relay.fetch": r.fetch}
}

// Request is the params of relay.fetch.
type Request struct {
	URL     string            `json:"url"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	// Encoding of relay.data pieces: "text" (default; the body must be
	// UTF-8, as model APIs' are) or "base64".
	Encoding string `json:"encoding"`
}

// Head is the status and headers of the upstream response, sent as the
// relay.head event before any data and repeated in the final reply.
type Head struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
}

// Events carry no "id": the session puts the request's id first in every
// event frame.
type headEvent struct {
	Event string `json:"event"`
	Head
}

type dataEvent struct {
	Event string `json:"event"`
	Data  string `json:"data"`
}

type reply struct {
	Head
	Bytes int64 `json:"bytes"`
}

// stream sends the body as relay.data events as soon as bytes arrive, never
// splitting a UTF-8 sequence in text mode.
func (r *Relay) stream(body io.Reader, binary bool, emit func(any) error) (int64, error) {
	buf := make([]byte, pieceBytes)
	var carry []byte // an incomplete UTF-8 sequence held for the next piece
	var total int64
	for {
		n, rerr := body.Read(buf[len(carry):])
		if n > 0 {
			total += int64(n)
			if total > r.maxBytes {
				return total, fmt.Errorf("response is larger than %d bytes", r.maxBytes)
			}
			chunk := buf[:len(carry)+n]
			var data string
			if binary {
				data = base64.StdEncoding.EncodeToString(chunk)
				carry = carry[:0]
			} else {
				cut := completeUTF8(chunk, rerr != nil)
				data = string(chunk[:cut])
				carry = append(carry[:0], chunk[cut:]...)
			}
			if data != "" {
				if err := emit(dataEvent{"relay.data", data}); err != nil {
					return total, fmt.Errorf("cannot send data: %w", err)
				}
			}
			copy(buf, carry)
		}
		if errors.Is(rerr, io.EOF) {
			if len(carry) > 0 {
				if err := emit(dataEvent{"relay.data", string(carry)}); err != nil {
					return total, fmt.Errorf("cannot send data: %w", err)
				}
			}
			return total, nil
		}
		if rerr != nil {
			return total, rerr
		}
	}
}

// completeUTF8 returns how much of b ends on a whole UTF-8 sequence. At the
// end of the body everything goes (invalid bytes become U+FFFD in JSON).
func completeUTF8(b []byte, final bool) int {
	if final {
		return len(b)
	}
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// send makes one HTTP request of a relay.fetch: headers go as given (no
// Referer, no cookies: fetch dropped them and the client adds none), the body
// only when withBody.
func (r *Relay) send(ctx context.Context, method string, u *url.URL, headers http.Header, body string, withBody bool) (*http.Response, error) {
	var rd io.Reader
	h := headers.Clone()
	if withBody {
		rd = strings.NewReader(body)
	} else {
		h.Del("Content-Type")
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, wire.Errorf(wire.CodeInvalidRequest, "cannot build the request to %s", redact(u))
	}
	req.Header = h
	return r.transport.RoundTrip(req)
}

// failure turns a transport error into a protocol error whose message names
// the URL without its query (url.Error would print the whole URL). An
// address the relay will not connect to is FORBIDDEN.
func (r *Relay) failure(ctx context.Context, u *url.URL, start time.Time, what string, err error) error {
	var re *wire.Error
	if errors.As(err, &re) {
		return re
	}
	if ctx.Err() != nil {
		r.log.Info().Str("url", redact(u)).Dur("took", time.Since(start)).Msg("relay cancelled")
		return &wire.Error{Code: wire.CodeCancelled, Message: fmt.Sprintf("relay to %s cancelled", redact(u)), Err: ctx.Err()}
	}
	var refused *refusedAddress
	if errors.As(err, &refused) {
		r.log.Warn().Str("url", redact(u)).Str("reason", refused.Error()).Msg("relay refused")
		return wire.Errorf(wire.CodeForbidden, "relay to %s refused: %s", redact(u), refused.Error())
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	text := scrub(err.Error(), u)
	r.log.Warn().Str("url", redact(u)).Str("error", text).Msg("relay " + what)
	return wire.Errorf(wire.CodeExecutionError, "relay to %s: %s: %s", redact(u), what, text)
}

// flatten joins repeated response headers; cookies are not passed on.
func flatten(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		if k == "Set-Cookie" {
			continue
		}
		out[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	return out
}

func validHeader(name, value string) bool {
	if name == "" || strings.ContainsAny(name, " \t\r\n:") || strings.ContainsAny(value, "\r\n\x00") {
		return false
	}
	return true
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

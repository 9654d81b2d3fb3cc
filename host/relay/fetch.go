package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/gnosis/gnosis/runtime/wire"
)

// fetch serves relay.fetch in four steps: decode and check the request,
// build its headers, send it following same-origin redirects, then pass
// the response on as relay.head and relay.data events.
func (r *Relay) fetch(ctx context.Context, _, params json.RawMessage, emit func(any) error) (any, error) {
	if r.setup != nil {
		return nil, r.setup
	}
	p, u, err := decodeRequest(params)
	if err != nil {
		return nil, err
	}
	if why := r.policy.check(u); why != "" {
		r.log.Warn().Str("url", redact(u)).Str("reason", why).Msg("relay refused")
		return nil, wire.Errorf(wire.CodeForbidden, "%s: %s", redact(u), why)
	}
	headers, err := requestHeaders(p.Headers)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	ex, err := r.follow(ctx, p, u, headers, start)
	if err != nil {
		return nil, err
	}
	defer ex.close()
	return r.relayResponse(ctx, ex, p, u, start, emit)
}

// decodeRequest reads relay.fetch's params strictly (an unknown field is an
// error), fills the default method, and checks the method, the encoding
// and that the URL parses. What the URL may reach is the policy's call.
func decodeRequest(params json.RawMessage) (Request, *url.URL, error) {
	var p Request
	dec := json.NewDecoder(bytes.NewReader(orEmpty(params)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, nil, &wire.Error{Code: wire.CodeInvalidRequest, Message: "params do not match relay.fetch", Err: err}
	}
	if p.Method == "" {
		p.Method = http.MethodPost
	}
	if p.Method != http.MethodPost && p.Method != http.MethodGet {
		return p, nil, wire.Errorf(wire.CodeInvalidRequest, "method must be GET or POST")
	}
	if p.Encoding != "" && p.Encoding != "text" && p.Encoding != "base64" {
		return p, nil, wire.Errorf(wire.CodeInvalidRequest, `encoding must be "text" or "base64"`)
	}
	u, err := url.Parse(p.URL)
	if err != nil {
		return p, nil, wire.Errorf(wire.CodeInvalidRequest, "url is not a URL")
	}
	return p, u, nil
}

// dropped request headers: the browser's identity (Origin, Referer,
// cookies), hop-by-hop and framing headers the HTTP client owns.
var dropped = map[string]bool{
	"Origin": true, "Referer": true, "Cookie": true, "Host": true, "Connection": true,
	"Content-Length": true, "Transfer-Encoding": true, "Upgrade": true, "Keep-Alive": true,
	"Te": true, "Trailer": true, "Accept-Encoding": true, "Expect": true,
}

// requestHeaders are the headers sent upstream: the extension's, without
// the dropped ones and any Proxy-* or Sec-*, and a User-Agent when it gave
// none. A header that is not valid HTTP is an error naming it.
func requestHeaders(given map[string]string) (http.Header, error) {
	headers := http.Header{}
	for k, v := range given {
		name := textproto.CanonicalMIMEHeaderKey(k)
		if dropped[name] || strings.HasPrefix(name, "Proxy-") || strings.HasPrefix(name, "Sec-") {
			continue
		}
		if !validHeader(name, v) {
			return nil, wire.Errorf(wire.CodeInvalidRequest, "header %q is not a valid HTTP header", k)
		}
		headers.Set(name, v)
	}
	if headers.Get("User-Agent") == "" {
		headers.Set("User-Agent", "gnosis-host relay")
	}
	return headers, nil
}

// exchange is the response follow settled on, the watch bounding its body,
// the URL that answered and how many redirects led there.
type exchange struct {
	resp      *http.Response
	watch     *watch
	target    *url.URL
	redirects int
}

// close closes the response body, then ends its watch.
func (ex *exchange) close() {
	ex.resp.Body.Close()
	ex.watch.stop()
}

// follow sends the request to u and follows redirects within u's origin
// (at most maxRedirects, each checked against the policy), returning the
// first response that is not one: a redirect to another origin is handed
// back as the response, since following it would carry the headers and
// the body to a server the extension did not name.
func (r *Relay) follow(ctx context.Context, p Request, u *url.URL, headers http.Header, start time.Time) (*exchange, error) {
	target, method, withBody := u, p.Method, p.Body != ""
	for redirects := 0; ; redirects++ {
		r.logRequest(method, target, headers, withBody, len(p.Body))
		w := newWatch(ctx, r.headerTimeout, r.idleTimeout)
		resp, err := r.send(w.ctx, method, target, headers, p.Body, withBody)
		if err != nil {
			if cause := w.timedOut(); cause != nil {
				err = r.timeoutError(target, cause, 0, start)
			} else {
				err = r.failure(ctx, target, start, "request failed", err)
			}
			w.stop()
			return nil, err
		}
		w.headers()
		ex := &exchange{resp: resp, watch: w, target: target, redirects: redirects}
		next, ok := redirect(resp)
		if !ok {
			return ex, nil
		}
		if origin(next.url) != origin(u) {
			r.log.Info().Str("url", redact(target)).Str("location", redact(next.url)).Int("status", resp.StatusCode).
				Msg("relay returns a redirect to another origin")
			return ex, nil
		}
		if why := r.policy.check(next.url); why != "" {
			ex.close()
			r.log.Warn().Str("url", redact(target)).Str("location", redact(next.url)).Str("reason", why).Msg("relay refused a redirect")
			return nil, wire.Errorf(wire.CodeForbidden, "redirect from %s to %s refused: %s", redact(target), redact(next.url), why)
		}
		if redirects == maxRedirects {
			ex.close()
			return nil, r.failure(ctx, target, start, "request failed", fmt.Errorf("stopped after %d redirects", maxRedirects))
		}
		io.Copy(io.Discard, io.LimitReader(w.body(resp.Body), pieceBytes)) // lets the connection be reused
		ex.close()
		target, method, withBody = next.url, next.method, withBody && next.body
	}
}

// logRequest logs, at debug, one request follow sends: method, URL and
// header names with credential values replaced (debugURL, debugHeaders),
// and the body's size.
func (r *Relay) logRequest(method string, target *url.URL, headers http.Header, withBody bool, size int) {
	e := r.log.Debug()
	if !e.Enabled() {
		return
	}
	if !withBody {
		size = 0
	}
	e.Str("method", method).Str("url", debugURL(target)).Interface("headers", debugHeaders(headers)).
		Int("bodyBytes", size).Msg("relay request")
}

// relayResponse sends the response's status and headers as relay.head,
// then its body as relay.data events, and returns the final reply.
func (r *Relay) relayResponse(ctx context.Context, ex *exchange, p Request, u *url.URL, start time.Time, emit func(any) error) (any, error) {
	head := Head{Status: ex.resp.StatusCode, Headers: flatten(ex.resp.Header)}
	if err := emit(headEvent{"relay.head", head}); err != nil {
		return nil, &wire.Error{Code: wire.CodeExecutionError, Message: "cannot send the response head", Err: err}
	}
	n, err := r.stream(ex.watch.body(ex.resp.Body), p.Encoding == "base64", emit)
	if err != nil {
		if cause := ex.watch.timedOut(); cause != nil {
			return nil, r.timeoutError(ex.target, cause, n, start)
		}
		return nil, r.failure(ctx, ex.target, start, "response failed", err)
	}
	r.log.Info().Str("method", p.Method).Str("url", redact(u)).Int("status", ex.resp.StatusCode).Int("redirects", ex.redirects).
		Int64("bytes", n).Dur("took", time.Since(start)).Msg("relayed")
	return reply{head, n}, nil
}

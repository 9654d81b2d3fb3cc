package mcpprovider

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/gnosis/gnosis/internal/budget"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"
)

// pipeTransport is an mcp-go transport (transport.BidirectionalInterface)
// over the child's stdin and stdout: newline-delimited JSON-RPC, as MCP's
// stdio transport specifies. mcp-go's own stdio transport decodes every
// incoming line twice as a whole, which for a multi-megabyte tool result
// costs more than everything else in a call; this one validates and routes a
// line in one pass (scanEnvelope) and hands the result on as a sub-slice of
// the line, never copied or decoded. mcp-go's client still runs the protocol
// (initialize, notifications, server requests such as ping).
type pipeTransport struct {
	r   io.Reader
	w   io.WriteCloser
	out *outbox // what is written to w: the server's stdin
	log zerolog.Logger

	mu sync.Mutex
	// pending maps a request's key (mcp.RequestId.String) to what receives
	// its response: called once, with the response, or with an error when
	// the transport closes first (transport.ErrTransportClosed) or the
	// response was too large to read (*tooLargeError).
	pending map[string]func(*transport.JSONRPCResponse, error)

	// maxMessage bounds one line from the server (DefaultMaxMessage); large
	// counts the bytes of lines past the reader's buffer until they have
	// been dealt with, up to maxMessage.
	maxMessage int64
	large      *budget.Budget
	// closing ends when the transport closes: a reader waiting for room in
	// large stops.
	closing     context.Context
	stopClosing context.CancelFunc

	handlerMu      sync.RWMutex
	onNotification func(mcp.JSONRPCNotification)
	onRequest      transport.RequestHandler

	// firstNonJSON is the first line the server wrote on stdout that is not
	// a JSON object (cleaned and cut), nil while there is none: it tells a
	// program that is not an MCP server, or one that logs to stdout.
	firstNonJSON atomic.Pointer[string]

	ctx       context.Context
	done      chan struct{}
	readDone  chan struct{} // closed when the reader has returned
	closeOnce sync.Once
	startOnce sync.Once
}

var _ transport.BidirectionalInterface = (*pipeTransport)(nil)

func newPipeTransport(r io.Reader, w io.WriteCloser, log zerolog.Logger, maxMessage int64) *pipeTransport {
	if maxMessage <= 0 {
		maxMessage = DefaultMaxMessage
	}
	t := &pipeTransport{r: r, w: w, log: log, pending: map[string]func(*transport.JSONRPCResponse, error){}, done: make(chan struct{}), readDone: make(chan struct{}), ctx: context.Background(),
		maxMessage: maxMessage, large: budget.New(maxMessage)}
	t.closing, t.stopClosing = context.WithCancel(context.Background())
	t.out = newOutbox(w, func(err error) {
		// The server can no longer hear us: every call waiting on it fails.
		t.log.Warn().Err(err).Msg("writing to the server failed; closing the connection")
		t.shut()
	})
	return t
}

// Start starts reading. ctx is handed to handlers of server requests.
func (t *pipeTransport) Start(ctx context.Context) error {
	t.startOnce.Do(func() {
		t.ctx = ctx
		go t.read()
	})
	return nil
}

// read routes every line until the child's stdout ends; then every request
// still waiting fails with transport.ErrTransportClosed.
func (t *pipeTransport) read() {
	defer close(t.readDone)
	defer t.shut()
	br := bufio.NewReaderSize(t.r, 64<<10)
	for {
		m, err := t.readLine(br)
		switch {
		case m.over != nil:
			t.dropOversized(m.over)
		case len(m.text) > 0:
			if !t.route(m.text, m.held) {
				t.large.Return(m.held)
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.log.Debug().Err(err).Msg("reading from the server")
			}
			return
		}
	}
}

// route delivers one message from the server. held is what the line holds
// of t.large, given back once it has been dealt with: an answer that large
// is handed on from a goroutine of its own, which gives it back (the checks
// of a multi-megabyte result and writing it to the browser would hold up
// the server's other messages), and route reports it did; everything else is
// dealt with on the reader, in order, and the caller gives the bytes back.
func (t *pipeTransport) route(line []byte, held int64) (handedOn bool) {
	env, ok := scanEnvelope(line)
	if !ok {
		if len(bytes.TrimSpace(line)) > 0 {
			t.log.Debug().Int("bytes", len(line)).Msg("ignoring a line from the server that is not a JSON object")
			if s := cleanLine(line); s != "" && t.firstNonJSON.Load() == nil {
				t.firstNonJSON.CompareAndSwap(nil, &s)
			}
		}
		return false
	}
	switch {
	case env.method != nil && env.id == nil:
		var n mcp.JSONRPCNotification
		if err := json.Unmarshal(line, &n); err != nil {
			return false
		}
		t.handlerMu.RLock()
		h := t.onNotification
		t.handlerMu.RUnlock()
		if h != nil {
			h(n)
		}
	case env.method != nil:
		var req transport.JSONRPCRequest
		if err := json.Unmarshal(line, &req); err != nil {
			return false
		}
		go t.serve(req)
	case env.id != nil:
		id, key, ok := responseID(env.id)
		if !ok {
			return false
		}
		resp := &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id}
		if env.err != nil && !bytes.Equal(env.err, []byte("null")) {
			resp.Error = &mcp.JSONRPCErrorDetails{}
			if err := json.Unmarshal(env.err, resp.Error); err != nil {
				resp.Error = &mcp.JSONRPCErrorDetails{Code: mcp.PARSE_ERROR, Message: "unreadable error from the server"}
			}
		} else {
			resp.Result = json.RawMessage(env.result)
		}
		t.mu.Lock()
		answer := t.pending[key]
		delete(t.pending, key)
		t.mu.Unlock()
		switch {
		case answer == nil:
		case held > 0:
			go func() {
				answer(resp, nil)
				t.large.Return(held)
			}()
			return true
		default:
			answer(resp, nil)
		}
	}
	return false
}

// responseID decodes a response's id and its key in the pending table
// (mcp.RequestId.String). The usual id, a string without escapes such as our
// "gnosis-N", is read without a JSON decoder.
func responseID(raw []byte) (mcp.RequestId, string, bool) {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw[1:n-1], '\\') < 0 && bytes.IndexByte(raw[1:n-1], '"') < 0 {
		v := string(raw[1 : n-1])
		return mcp.NewRequestId(v), pendingKey(v), true
	}
	var id mcp.RequestId
	if err := json.Unmarshal(raw, &id); err != nil {
		return id, "", false
	}
	return id, id.String(), true
}

// serve answers a request from the server (ping, sampling, roots...) with
// mcp-go's client handler.
func (t *pipeTransport) serve(req transport.JSONRPCRequest) {
	t.handlerMu.RLock()
	h := t.onRequest
	t.handlerMu.RUnlock()
	var resp *transport.JSONRPCResponse
	if h == nil {
		resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND, "no request handler", nil)
	} else {
		r, err := h(t.ctx, req)
		switch {
		case err != nil:
			resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil)
		case r != nil:
			resp = r
		default:
			return
		}
	}
	b, err := json.Marshal(resp)
	if err == nil {
		if err := t.write("", append(b, '\n')); err != nil {
			t.log.Debug().Err(err).Msg("could not answer a request from the server")
		}
	}
}

// write writes one message, line: its JSON text and a newline, through the
// outbox (it never blocks on the server). key is the pending-table key of the
// request it carries, "" for other messages.
func (t *pipeTransport) write(key string, line []byte) error {
	select {
	case <-t.done:
		return transport.ErrTransportClosed
	default:
	}
	return t.out.push(key, line)
}

// withdraw takes back the request with key if it has not been written yet
// (the server stopped reading): the server will never see it.
func (t *pipeTransport) withdraw(key string) bool { return t.out.withdraw(key) }

// SendRequest implements transport.Interface.
func (t *pipeTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encoding request: %w", err)
	}
	return t.roundTrip(ctx, req.ID.String(), append(b, '\n'))
}

// roundTrip sends line, a request already encoded (newline included) whose
// id has the pending-table key key (mcp.RequestId.String), and waits for
// its response.
func (t *pipeTransport) roundTrip(ctx context.Context, key string, line []byte) (*transport.JSONRPCResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type outcome struct {
		resp *transport.JSONRPCResponse
		err  error
	}
	ch := make(chan outcome, 1)
	if err := t.send(key, line, func(r *transport.JSONRPCResponse, err error) { ch <- outcome{r, err} }); err != nil {
		return nil, err
	}
	select {
	case o := <-ch:
		return o.resp, o.err
	case <-ctx.Done():
		if t.forget(key) {
			return nil, ctx.Err()
		}
		o := <-ch // answered (or closed) as ctx ended
		return o.resp, o.err
	}
}

// send registers answer for the response to key and writes line, a request
// already encoded (newline included). answer is called exactly once (see
// pending), unless forget(key) takes it back. When send returns an error,
// answer is never called.
func (t *pipeTransport) send(key string, line []byte, answer func(*transport.JSONRPCResponse, error)) error {
	t.mu.Lock()
	select {
	case <-t.done:
		t.mu.Unlock()
		return transport.ErrTransportClosed
	default:
	}
	t.pending[key] = answer
	t.mu.Unlock()
	if err := t.write(key, line); err != nil {
		if t.forget(key) {
			return err
		}
		// Closed meanwhile: answer has been called with the error.
	}
	return nil
}

// forget takes back the answer registered for key; false when it has been
// (or is being) called.
func (t *pipeTransport) forget(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.pending[key]
	delete(t.pending, key)
	return ok
}

// SendNotification implements transport.Interface.
func (t *pipeTransport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("encoding notification: %w", err)
	}
	return t.write("", append(b, '\n'))
}

// SetNotificationHandler implements transport.Interface.
func (t *pipeTransport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.handlerMu.Lock()
	t.onNotification = h
	t.handlerMu.Unlock()
}

// SetRequestHandler implements transport.BidirectionalInterface.
func (t *pipeTransport) SetRequestHandler(h transport.RequestHandler) {
	t.handlerMu.Lock()
	t.onRequest = h
	t.handlerMu.Unlock()
}

// GetSessionId implements transport.Interface; stdio has no session id.
func (t *pipeTransport) GetSessionId() string { return "" }

// nonJSON returns the first line the server wrote on stdout that is not a
// JSON object, "" if none.
func (t *pipeTransport) nonJSON() string {
	if s := t.firstNonJSON.Load(); s != nil {
		return *s
	}
	return ""
}

// Close stops sending, drops what waits to be written, closes the child's
// stdin (which asks an MCP stdio server to exit) and fails every waiting
// request.
//
// It does not wait for a write in progress (a hung child may never drain
// its stdin): closing the pipe under it makes that write fail.
func (t *pipeTransport) Close() error {
	t.shut()
	t.out.close()
	return t.w.Close()
}

func (t *pipeTransport) shut() {
	t.closeOnce.Do(func() {
		t.mu.Lock()
		close(t.done)
		waiting := t.pending
		t.pending = map[string]func(*transport.JSONRPCResponse, error){}
		t.mu.Unlock()
		t.stopClosing()
		for _, answer := range waiting {
			answer(nil, transport.ErrTransportClosed)
		}
	})
}

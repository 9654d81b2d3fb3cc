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

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"
)

// pipeTransport speaks JSON-RPC over the child's stdin and stdout:
// newline-delimited, as MCP's stdio transport specifies. mcp-go's own stdio
// transport decodes every incoming line twice as a whole, which for a
// multi-megabyte tool result costs more than everything else in a call; this
// one validates and routes a line in one pass (scanEnvelope) and hands the
// result on as a sub-slice of the line, never copied or decoded. It uses
// mcp-go's protocol types (package mcp) but not its client: that package
// links mcp-go's server and a JSON Schema validator whose meta-schemas are
// compiled at start-up, ~10 ms of every host start for nothing we use.
type pipeTransport struct {
	r   io.Reader
	w   io.WriteCloser
	log zerolog.Logger

	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[string]chan *response

	onNotification func(method string) // set before Start

	done      chan struct{}
	readDone  chan struct{} // closed when the reader has returned
	closeOnce sync.Once
	startOnce sync.Once
}

// response is a JSON-RPC response: a raw result (a sub-slice of its line)
// or an error.
type response struct {
	result json.RawMessage
	err    *rpcError
}

// errClosed is the failure of every request once the connection is closed.
var errClosed = errors.New("transport closed")

func newPipeTransport(r io.Reader, w io.WriteCloser, log zerolog.Logger, onNotification func(method string)) *pipeTransport {
	return &pipeTransport{r: r, w: w, log: log, onNotification: onNotification, pending: map[string]chan *response{}, done: make(chan struct{}), readDone: make(chan struct{})}
}

// start starts reading.
func (t *pipeTransport) start() {
	t.startOnce.Do(func() { go t.read() })
}

// maxLine bounds one incoming message: beyond it the server is broken or
// hostile, and the connection is dropped rather than memory exhausted.
const maxLine = 512 << 20

// read routes every line until the child's stdout ends; then every request
// still waiting fails with errClosed.
func (t *pipeTransport) read() {
	defer close(t.readDone)
	defer t.shut()
	br := bufio.NewReaderSize(t.r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			t.route(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.log.Debug().Err(err).Msg("reading from the server")
			}
			return
		}
	}
}

// readLine returns the next line without its newline, in a buffer of its
// own (results alias it).
func readLine(br *bufio.Reader) ([]byte, error) {
	frag, err := br.ReadSlice('\n')
	if err == nil {
		return trimEOL(append([]byte(nil), frag...)), nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return trimEOL(append([]byte(nil), frag...)), err
	}
	var buf bytes.Buffer
	buf.Write(frag)
	for {
		frag, err = br.ReadSlice('\n')
		buf.Write(frag)
		if buf.Len() > maxLine {
			return nil, fmt.Errorf("a message from the server exceeds %d bytes", maxLine)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return trimEOL(buf.Bytes()), err
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

func (t *pipeTransport) route(line []byte) {
	env, ok := scanEnvelope(line)
	if !ok {
		if len(bytes.TrimSpace(line)) > 0 {
			t.log.Debug().Int("bytes", len(line)).Msg("ignoring a line from the server that is not a JSON object")
		}
		return
	}
	switch {
	case env.method != nil && env.id == nil:
		var method string
		if json.Unmarshal(env.method, &method) == nil && t.onNotification != nil {
			t.onNotification(method)
		}
	case env.method != nil:
		var method string
		if json.Unmarshal(env.method, &method) != nil {
			return
		}
		go t.serve(json.RawMessage(env.id), method)
	case env.id != nil:
		key, ok := responseKey(env.id)
		if !ok {
			return
		}
		resp := &response{}
		if env.err != nil && !bytes.Equal(env.err, []byte("null")) {
			resp.err = &rpcError{}
			if err := json.Unmarshal(env.err, resp.err); err != nil {
				resp.err = &rpcError{Code: mcp.PARSE_ERROR, Message: "unreadable error from the server"}
			}
		} else {
			resp.result = json.RawMessage(env.result)
		}
		t.mu.Lock()
		ch := t.pending[key]
		delete(t.pending, key)
		t.mu.Unlock()
		if ch != nil {
			ch <- resp // buffered: never blocks
		}
	}
}

// responseKey returns a response id's key in the pending table: the id as
// mcp.RequestId.String gives it. The usual id, a string without escapes such
// as our "gnosis-N", is read without a JSON decoder.
func responseKey(raw []byte) (string, bool) {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw[1:n-1], '\\') < 0 && bytes.IndexByte(raw[1:n-1], '"') < 0 {
		return "string:" + string(raw[1:n-1]), true
	}
	var id mcp.RequestId
	if err := json.Unmarshal(raw, &id); err != nil {
		return "", false
	}
	return id.String(), true
}

// serve answers a request from the server: ping (which MCP lets a server
// send at any time) with an empty result; anything else (sampling, roots,
// elicitation: capabilities we do not declare) with "method not found".
func (t *pipeTransport) serve(id json.RawMessage, method string) {
	var b []byte
	var err error
	if method == string(mcp.MethodPing) {
		b, err = json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  struct{}        `json:"result"`
		}{mcp.JSONRPC_VERSION, id, struct{}{}})
	} else {
		b, err = json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   rpcError        `json:"error"`
		}{mcp.JSONRPC_VERSION, id, rpcError{Code: mcp.METHOD_NOT_FOUND, Message: "unsupported request method: " + method}})
	}
	if err == nil {
		_ = t.write(append(b, '\n'))
	}
}

// write writes one message, line: its JSON text and a newline.
func (t *pipeTransport) write(line []byte) error {
	select {
	case <-t.done:
		return errClosed
	default:
	}
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	if _, err := t.w.Write(line); err != nil {
		return fmt.Errorf("writing to the server: %w", err)
	}
	return nil
}

// roundTrip sends line, a request already encoded (newline included) whose
// id has the pending-table key key (mcp.RequestId.String), and waits for
// its response.
func (t *pipeTransport) roundTrip(ctx context.Context, key string, line []byte) (*response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ch := make(chan *response, 1)
	t.mu.Lock()
	select {
	case <-t.done:
		t.mu.Unlock()
		return nil, errClosed
	default:
	}
	t.pending[key] = ch
	t.mu.Unlock()
	forget := func() {
		t.mu.Lock()
		delete(t.pending, key)
		t.mu.Unlock()
	}
	if err := t.write(line); err != nil {
		forget()
		return nil, err
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	case <-t.done:
		select {
		case resp := <-ch: // answered just before the end
			return resp, nil
		default:
		}
		forget()
		return nil, errClosed
	}
}

// notify sends a notification.
func (t *pipeTransport) notify(method string, params any) error {
	b, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{mcp.JSONRPC_VERSION, method, params})
	if err != nil {
		return fmt.Errorf("encoding notification: %w", err)
	}
	return t.write(append(b, '\n'))
}

// Close stops sending, closes the child's stdin (which asks an MCP stdio
// server to exit) and fails every waiting request.
//
// It does not wait for a write in progress (a hung child may never drain
// its stdin): closing the pipe under it makes that write fail.
func (t *pipeTransport) Close() error {
	t.shut()
	return t.w.Close()
}

func (t *pipeTransport) shut() {
	t.closeOnce.Do(func() {
		t.mu.Lock()
		close(t.done)
		t.mu.Unlock()
	})
}

package mcpprovider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gnosis/gnosis/runtime"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"
)

// session is one run of the child process and the MCP connection to it.
//
// The process is ours, not the transport's: the transport (pipe.go) speaks
// MCP over pipes we created, so we can Wait for the child (mcp-go's stdio
// transport reports no exit), put it in a process group or job object, and
// stop it in well under a second (mcp-go's stdio Close waits seconds).
type session struct {
	log    zerolog.Logger
	clock  clock // the grace and reaping waits of stop
	cmd    *exec.Cmd
	tree   *processTree
	stdout *os.File
	stderr *stderrTail
	tr     *pipeTransport
	client *client.Client

	nextID   atomic.Int64
	stopping atomic.Bool
	exited   chan struct{} // closed once the child has exited and been reaped
	exitErr  error         // valid after exited is closed

	listChanged chan struct{} // a tools/list_changed arrived (buffer 1: coalesced)
	progress    progressRoutes
}

// launch starts the child and connects to it. ctx must be long-lived: mcp-go
// uses it for requests the server sends us. maxMessage bounds one message
// from the server (DefaultMaxMessage when 0); stop waits on clk.
func launch(ctx context.Context, cfg Config, log zerolog.Logger, maxMessage int64, clk clock) (*session, error) {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = os.Environ()
	keys := make([]string, 0, len(cfg.Env))
	for k := range cfg.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+cfg.Env[k])
	}
	prepareTree(cmd)

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("creating stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("creating stderr pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	closeAll(inR, outW, errW) // the child has its copies
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("starting %s: %w", cfg.Command, err)
	}
	s := &session{
		log:         log.With().Int("pid", cmd.Process.Pid).Logger(),
		clock:       clk,
		cmd:         cmd,
		tree:        attachTree(cmd),
		stdout:      outR,
		stderr:      newStderrTail(),
		exited:      make(chan struct{}),
		listChanged: make(chan struct{}, 1),
	}
	go logStderr(s.log, errR, s.stderr)
	s.tr = newPipeTransport(outR, inW, s.log, maxMessage)
	s.client = client.NewClient(s.tr, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	go s.wait()
	go s.watchStdout()
	s.client.OnNotification(func(n mcp.JSONRPCNotification) {
		switch n.Method {
		case string(mcp.MethodNotificationToolsListChanged):
			select {
			case s.listChanged <- struct{}{}:
			default:
			}
		case string(mcp.MethodNotificationProgress):
			s.progress.deliver(n)
		}
	})
	if err := s.client.Start(ctx); err != nil {
		s.stop(0)
		return nil, fmt.Errorf("starting MCP client: %w", err)
	}
	return s, nil
}

func closeAll(fs ...io.Closer) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// wait reaps the child, then takes down what it left behind and fails every
// call in flight.
func (s *session) wait() {
	s.exitErr = s.cmd.Wait()
	s.tree.kill()
	// Let the reader deliver what the child wrote before it exited (its
	// stdout ends once the whole tree is gone), but not for long: a
	// grandchild that escaped the tree must not keep the reader alive.
	select {
	case <-s.tr.readDone:
	case <-time.After(100 * time.Millisecond):
	}
	_ = s.tr.Close()
	_ = s.stdout.Close()
	s.tree.release()
	close(s.exited)
}

// watchStdout ends a child whose stdout ended (or broke) while it kept
// running: nothing it does can reach us any more, so it is as good as dead,
// and killing it lets the supervisor restart it.
func (s *session) watchStdout() {
	select {
	case <-s.tr.readDone:
	case <-s.exited:
		return
	}
	select {
	case <-s.exited:
	case <-time.After(100 * time.Millisecond):
		if !s.stopping.Load() {
			s.log.Warn().Msg("the server's stdout ended but it kept running; stopping it")
		}
		s.tree.kill()
	}
}

// initialize runs the MCP handshake, pinned to the last protocol version
// that uses it, which skips mcp-go's server/discover probe (up to 5 s against
// servers that don't know it).
func (s *session) initialize(ctx context.Context, name, version string) error {
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: name, Version: version}
	res, err := s.client.Initialize(ctx, req)
	if err != nil {
		return fmt.Errorf("initialize: %w", s.explain(err))
	}
	s.log.Debug().Str("server", res.ServerInfo.Name).Str("version", res.ServerInfo.Version).Str("protocol", res.ProtocolVersion).Msg("initialized")
	return nil
}

// maxPages bounds pagination against a server that never stops.
const maxPages = 1000

// listTools reads every page of tools/list raw, keeping each inputSchema
// byte for byte.
func (s *session) listTools(ctx context.Context) ([]runtime.Tool, error) {
	var tools []runtime.Tool
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("tools/list: more than %d pages", maxPages)
		}
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := s.request(ctx, string(mcp.MethodToolsList), params)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("tools/list: decoding result: %w", err)
		}
		for _, rawTool := range res.Tools {
			var t struct {
				Name        string          `json:"name"`
				Title       string          `json:"title"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
				Annotations json.RawMessage `json:"annotations"`
			}
			if err := json.Unmarshal(rawTool, &t); err != nil {
				return nil, fmt.Errorf("tools/list: decoding a tool: %w", err)
			}
			t.Annotations = bytes.TrimSpace(t.Annotations)
			if len(t.Annotations) > 0 && t.Annotations[0] != '{' {
				t.Annotations = nil // hints are an object; anything else is dropped
			}
			if t.Title == "" && t.Annotations != nil {
				// MCP puts a display name in title, or else in annotations.title.
				var a struct {
					Title string `json:"title"`
				}
				_ = json.Unmarshal(t.Annotations, &a)
				t.Title = a.Title
			}
			tools = append(tools, runtime.Tool{Name: t.Name, Title: t.Title, Description: t.Description,
				InputSchema: t.InputSchema, Annotations: t.Annotations, Raw: rawTool})
		}
		if res.NextCursor == "" {
			return tools, nil
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("tools/list: cursor %q repeats", res.NextCursor)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// rpcError is a JSON-RPC error answer from the server.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("server error %d: %s", e.Code, e.Message) }

// request sends one raw JSON-RPC request and returns its raw result. Our ids
// are strings, so they never collide with mcp-go's numeric ones.
func (s *session) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var raw json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("encoding request: %w", err)
		}
		raw = b
	}
	var buf bytes.Buffer
	return s.send(ctx, &buf, s.nextID.Add(1), method, func(b *bytes.Buffer) error {
		if raw != nil {
			b.Write(raw)
		}
		return nil
	})
}

// requestID is the JSON-RPC id of our request number n, "gnosis-<n>".
func requestID(n int64) string { return "gnosis-" + strconv.FormatInt(n, 10) }

// pendingKey is the transport's pending-table key (mcp.RequestId.String) of
// our string request id v.
func pendingKey(v string) string { return "string:" + v }

// send sends the request {"jsonrpc","id","method","params"} with id
// requestID(n), encoded into buf by encodeRequest, and returns the raw
// result.
func (s *session) send(ctx context.Context, buf *bytes.Buffer, n int64, method string, params func(*bytes.Buffer) error) (json.RawMessage, error) {
	if err := encodeRequest(buf, n, method, params); err != nil {
		return nil, err
	}
	v := requestID(n)
	resp, err := s.tr.roundTrip(ctx, pendingKey(v), buf.Bytes())
	if err != nil {
		if ctx.Err() != nil {
			if !s.tr.withdraw(pendingKey(v)) { // a request the server never saw needs no cancelling
				s.cancelled(mcp.NewRequestId(v), ctx.Err())
			}
			return nil, ctx.Err()
		}
		return nil, s.explain(err)
	}
	if resp.Error != nil {
		return nil, newRPCError(resp.Error)
	}
	return resp.Result, nil
}

func newRPCError(d *mcp.JSONRPCErrorDetails) *rpcError {
	e := &rpcError{Code: d.Code, Message: d.Message}
	if d.Data != nil {
		e.Data, _ = json.Marshal(d.Data)
	}
	return e
}

// encodeRequest encodes the request {"jsonrpc","id","method","params"} with
// id requestID(n) into buf, newline included (params written by params;
// none if it writes nothing). It is encoded by hand: it is on every call's
// path, where encoding/json's reflection showed in profiles.
func encodeRequest(buf *bytes.Buffer, n int64, method string, params func(*bytes.Buffer) error) error {
	b := buf.AvailableBuffer()
	b = append(b, `{"jsonrpc":"2.0","id":"gnosis-`...)
	b = strconv.AppendInt(b, n, 10)
	b = append(b, `","method":`...)
	b = appendString(b, method)
	buf.Write(b)
	at := buf.Len()
	buf.WriteString(`,"params":`)
	mark := buf.Len()
	if err := params(buf); err != nil {
		return fmt.Errorf("encoding request: %w", err)
	}
	if buf.Len() == mark {
		buf.Truncate(at)
	}
	buf.WriteString("}\n")
	return nil
}

// appendString appends v as a JSON string: as is when it is printable ASCII
// with nothing to escape (tool and method names), else encoded.
func appendString(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			q, _ := json.Marshal(v) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, v...)
	return append(b, '"')
}

// cancelled tells the server to stop working on request id. mcp-go does
// this for requests sent through its client, not for raw transport requests
// like ours, so we do it ourselves, off the caller's path.
func (s *session) cancelled(id mcp.RequestId, reason error) {
	n := mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": reason.Error()}},
		},
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := s.tr.SendNotification(ctx, n); err != nil {
			s.log.Debug().Err(err).Msg("could not send notifications/cancelled")
		}
	}()
}

// errExited reports that the child exited while a request was in flight.
var errExited = errors.New("the server exited")

// explain turns a transport error into errExited when the child is gone.
func (s *session) explain(err error) error {
	if errors.Is(err, transport.ErrTransportClosed) {
		return fmt.Errorf("%w: %w", errExited, err)
	}
	select {
	case <-s.exited:
		return fmt.Errorf("%w: %w", errExited, err)
	default:
		return err
	}
}

// stop ends the session on purpose: stdin is closed (the polite way to ask
// an MCP stdio server to exit); after grace the whole process tree is killed.
// It returns once the child is reaped, or after a further second at most.
func (s *session) stop(grace time.Duration) {
	s.stopping.Store(true)
	_ = s.tr.Close()
	if grace > 0 {
		select {
		case <-s.exited:
			return
		case <-s.clock.After(grace):
		}
	}
	s.tree.kill()
	select {
	case <-s.exited:
	case <-s.clock.After(time.Second):
		s.log.Warn().Msg("child not reaped one second after kill")
	}
}

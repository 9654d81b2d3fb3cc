package mcpprovider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// toolCall is one tools/call in flight. No goroutine waits on it: it ends
// when the server answers (on the transport's reader), when its context
// ends or its timeout passes (on the context's AfterFunc goroutine), or
// when the transport closes, whichever comes first; end makes sure only the
// first one counts.
type toolCall struct {
	s      *session
	tool   string
	token  string // the request's id and progress token, "gnosis-<n>"
	key    string // its key in the transport's pending table
	ctx    context.Context
	limit  time.Duration
	report func(runtime.Progress) // nil: the caller wants no progress
	done   func(json.RawMessage, error)

	// mu guards what follows. start holds it from sending the request to
	// arming the call, so an answer that comes first waits for the arming.
	mu     sync.Mutex
	cctx   context.Context    // ctx bounded by the provider's timeout; nil until armed
	cancel context.CancelFunc // cctx's
	stop   func() bool        // unregisters expire from cctx
	ended  bool
	unsent bool // it ended while its request still waited to be written
}

// start sends tools/call for tool with args and returns at once. done gets
// the raw result, or an error with its protocol code, exactly once: from
// the transport's reader when the server answers a small result, else from
// another goroutine (possibly this one, when the call cannot be sent).
// The server's progress reports for the call go to
// runtime.ProgressFrom(ctx), if any, in order and before done.
//
// The timeout and the watch on ctx are armed after the request is written:
// the request leaves a microsecond sooner, and the server, woken by it,
// gets on with it while this goroutine finishes its part.
func (s *session) start(ctx context.Context, tool string, args json.RawMessage, limit time.Duration, done func(json.RawMessage, error)) {
	n := s.nextID.Add(1)
	token := requestID(n)
	c := &toolCall{s: s, tool: tool, token: token, key: pendingKey(token), ctx: ctx, limit: limit, report: runtime.ProgressFrom(ctx), done: done}
	if err := ctx.Err(); err != nil {
		done(nil, c.failure(err))
		return
	}
	var buf bytes.Buffer
	buf.Grow(len(args) + len(tool) + 128)
	if err := encodeRequest(&buf, n, string(mcp.MethodToolsCall), c.params(args, n)); err != nil {
		done(nil, &wire.Error{Code: wire.CodeExecutionError, Message: "the call could not be encoded", Err: err})
		return
	}
	if c.report != nil {
		s.progress.add(c.token, c.report)
	}
	c.mu.Lock()
	if err := s.tr.send(c.key, buf.Bytes(), c.answer); err != nil {
		c.mu.Unlock()
		c.end(nil, c.failure(s.explain(err)))
		return
	}
	c.cctx, c.cancel = context.WithTimeout(ctx, limit)
	c.stop = context.AfterFunc(c.cctx, c.expire) // at once, on its own goroutine, if ctx has ended
	c.mu.Unlock()
}

// params writes tools/call's params: the tool, its arguments on one line
// (as stdio requires) and the progress token.
func (c *toolCall) params(args json.RawMessage, n int64) func(*bytes.Buffer) error {
	return func(b *bytes.Buffer) error {
		b.WriteString(`{"name":`)
		b.Write(appendString(b.AvailableBuffer(), c.tool))
		b.WriteString(`,"arguments":`)
		b.Grow(len(args) + 64) // once, not doubling through tens of megabytes
		if len(args) == 0 {
			b.WriteString("null")
		} else if err := json.Compact(b, args); err != nil {
			return err
		}
		b.WriteString(`,"_meta":{"progressToken":"gnosis-`)
		b.Write(strconv.AppendInt(b.AvailableBuffer(), n, 10))
		b.WriteString(`"}}`)
		return nil
	}
}

// answer receives the server's response, or why there is none. It runs on
// the transport's reader, or for a large answer on a goroutine of its own
// (pipeTransport.route).
func (c *toolCall) answer(resp *transport.JSONRPCResponse, err error) {
	switch {
	case err != nil:
		c.end(nil, c.unanswered(err))
	case resp.Error != nil:
		c.end(nil, c.failure(newRPCError(resp.Error)))
	default:
		c.end(resp.Result, nil)
	}
}

// unanswered is the error of a call the server's answer did not reach.
func (c *toolCall) unanswered(err error) error {
	var large *tooLargeError
	if errors.As(err, &large) {
		return &wire.Error{Code: wire.CodeExecutionError,
			Message: fmt.Sprintf("%s answered with a message of %d bytes, above the %d-byte limit for one message from a server; it was discarded, and the provider keeps serving", c.tool, large.size, large.limit),
			Details: map[string]any{"reason": "result-too-large", "bytes": large.size, "limit": large.limit}, Err: err}
	}
	return c.failure(c.s.explain(err))
}

// expire ends the call when its context ends or its timeout passes, unless
// the server's answer came first, and tells the server to stop.
func (c *toolCall) expire() {
	if !c.s.tr.forget(c.key) {
		return
	}
	unsent := c.s.tr.withdraw(c.key)
	c.mu.Lock()
	why := c.cctx.Err()
	c.unsent = unsent
	c.mu.Unlock()
	if !unsent { // a request the server never saw needs no cancelling
		c.s.cancelled(mcp.NewRequestId(c.token), why)
	}
	c.end(nil, c.failure(why))
}

// end delivers the outcome once and releases the call's timer and route.
func (c *toolCall) end(result json.RawMessage, err error) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended = true
	stop, cancel := c.stop, c.cancel
	c.mu.Unlock()
	if stop != nil {
		stop()
		cancel()
	}
	if c.report != nil {
		c.s.progress.remove(c.token)
	}
	c.done(result, err)
}

// timedOut reports whether the call's timeout has passed.
func (c *toolCall) timedOut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cctx != nil && c.cctx.Err() != nil
}

func (c *toolCall) wasUnsent() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unsent
}

// failure gives a failed call its protocol code.
func (c *toolCall) failure(err error) error {
	var rpc *rpcError
	switch {
	case errors.Is(c.ctx.Err(), context.Canceled):
		return &wire.Error{Code: wire.CodeCancelled, Message: "the call was cancelled", Err: err}
	case c.ctx.Err() != nil || c.timedOut():
		msg := fmt.Sprintf("%s did not answer within %s", c.tool, c.limit)
		if c.wasUnsent() {
			msg += "; the server never read the request (it is not reading its input)"
		}
		return &wire.Error{Code: wire.CodeTimeout, Message: msg, Err: err}
	case errors.Is(err, errBacklog):
		return &wire.Error{Code: wire.CodeOverloaded, Message: fmt.Sprintf("%s was not sent: %v", c.tool, err), Details: map[string]string{"reason": "backlog"}, Err: err}
	case c.s.stopping.Load():
		return &wire.Error{Code: wire.CodeCancelled, Message: "the provider is shutting down", Err: err}
	case errors.As(err, &rpc):
		var details any
		if b, merr := json.Marshal(rpc); merr == nil {
			details = json.RawMessage(b)
		}
		return &wire.Error{Code: wire.CodeExecutionError, Message: rpc.Message, Details: details, Err: err}
	case errors.Is(err, errExited):
		return &wire.Error{Code: wire.CodeProviderUnavailable, Message: "the provider exited during the call", Err: err}
	}
	return &wire.Error{Code: wire.CodeProviderUnavailable, Message: "the provider connection failed", Err: err}
}

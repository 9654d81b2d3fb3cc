package nmclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gnosis/gnosis/host/framing"
)

// Message is one whole message from the host: a reply, reassembled when it
// came in chunks, or an event.
type Message struct {
	// Body is the message's JSON text.
	Body []byte
	// ID is the message's "id" as written (`null` included); nil when the
	// message has none.
	ID json.RawMessage
	// Reply tells a reply from an event: events have no id, or carry a
	// request's id with "event" and no "ok" (docs/protocol.md, Events).
	Reply bool
	// Frames is how many frames carried the message (1 when not chunked).
	Frames int
}

// Stats counts what was read from the host so far.
type Stats struct {
	Frames  int           // frames read
	Largest int           // largest frame body, in bytes
	Decode  time.Duration // time spent decoding frames and joining chunks
}

// ErrTimeout is returned by Await when the deadline passes first.
var ErrTimeout = errors.New("timed out waiting for the host's reply")

// Client is a host process started the way a browser starts one. Send and
// Request may be called from any goroutine; messages are read by one
// goroutine and delivered on Messages, which one consumer drains (directly
// or through Await), or, WithInlineReads, by Await itself.
type Client struct {
	cfg  config
	cmd  *exec.Cmd
	wmu  sync.Mutex
	in   *os.File
	out  *os.File
	fr   *framing.Reader
	rd   reader
	msgs chan Message
	err  error // why the output ended; set before msgs closes

	nextID  atomic.Int64
	frames  atomic.Int64
	largest atomic.Int64
	decode  atomic.Int64

	exited chan struct{}
}

// Start launches the host binary bin and starts reading its output.
func Start(bin string, opts ...Option) (*Client, error) {
	cfg := defaults()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.dir == "" {
		cfg.dir = filepath.Dir(bin)
	}
	argv := append(append(append([]string(nil), cfg.launcher...), bin, cfg.origin), cfg.args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = cfg.dir
	cmd.Env = cfg.env
	// Our own pipes rather than exec's copying goroutines, so that Wait
	// returns when the host exits even if a child it leaked holds one.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	var errR, errW *os.File
	switch w := cfg.stderr.(type) {
	case nil:
	case *os.File:
		cmd.Stderr = w
	default:
		if errR, errW, err = os.Pipe(); err != nil {
			closeAll(inR, inW, outR, outW)
			return nil, err
		}
		cmd.Stderr = errW
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	closeAll(inR, outW, errW)
	c := &Client{cfg: cfg, cmd: cmd, in: inW, out: outR, exited: make(chan struct{})}
	// Buffered, so that a frame usually takes one read.
	c.fr = framing.NewReader(bufio.NewReaderSize(outR, 64<<10), cfg.maxFrame)
	if errR != nil {
		go func() { io.Copy(cfg.stderr, errR); errR.Close() }()
	}
	if !cfg.inline {
		c.msgs = make(chan Message, 16)
		go c.read()
	}
	go func() { cmd.Wait(); close(c.exited) }()
	return c, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// Send writes body as one frame.
func (c *Client) Send(body []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.in.Write(framing.Append(nil, body)); err != nil {
		return fmt.Errorf("sending to the host: %w", err)
	}
	return nil
}

// SendRaw writes b to the host's stdin as it is, framed or not.
func (c *Client) SendRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.in.Write(b); err != nil {
		return fmt.Errorf("sending to the host: %w", err)
	}
	return nil
}

// Request sends {"id":N,"method":method,"params":params} with a fresh
// numeric id (params omitted when nil) and returns the id as written.
func (c *Client) Request(method string, params any) (string, error) {
	id := strconv.FormatInt(c.nextID.Add(1), 10)
	return id, c.RequestID(json.RawMessage(id), method, params)
}

// RequestID sends a request with the given id.
func (c *Client) RequestID(id any, method string, params any) error {
	req := map[string]any{"id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	b, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encoding request %s: %w", method, err)
	}
	return c.Send(b)
}

// Messages delivers the host's messages in order; it is closed when the
// output ends (see Err). It is nil WithInlineReads.
func (c *Client) Messages() <-chan Message { return c.msgs }

// Err says why the output ended: io.EOF when the host closed stdout between
// frames. Valid once Messages is closed.
func (c *Client) Err() error { return c.err }

// Await returns the body of the reply whose id is id, skipping events and
// other replies. It fails with ErrTimeout when deadline fires first, and
// with an error wrapping Err() when the output ends.
func (c *Client) Await(id string, deadline <-chan time.Time) ([]byte, error) {
	if c.cfg.inline {
		return c.awaitInline(id)
	}
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return nil, fmt.Errorf("no reply to request %s: %w", id, c.err)
			}
			if m.Reply && bytes.Equal(m.ID, []byte(id)) {
				return m.Body, nil
			}
		case <-deadline:
			return nil, ErrTimeout
		}
	}
}

// awaitInline is Await reading on the caller's goroutine (WithInlineReads).
func (c *Client) awaitInline(id string) ([]byte, error) {
	for c.err == nil {
		m, err := c.next()
		if err != nil {
			c.err = err
			c.out.Close()
			break
		}
		if m.Reply && bytes.Equal(m.ID, []byte(id)) {
			return m.Body, nil
		}
	}
	return nil, fmt.Errorf("no reply to request %s: %w", id, c.err)
}

// Call sends a request with a fresh id and awaits its reply.
func (c *Client) Call(method string, params any, deadline <-chan time.Time) ([]byte, error) {
	id, err := c.Request(method, params)
	if err != nil {
		return nil, err
	}
	return c.Await(id, deadline)
}

// Stats returns the counts so far.
func (c *Client) Stats() Stats {
	return Stats{Frames: int(c.frames.Load()), Largest: int(c.largest.Load()), Decode: time.Duration(c.decode.Load())}
}

// CloseInput closes the host's stdin, as a browser closing the port does.
func (c *Client) CloseInput() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.in.Close()
}

// Exited is closed when the host process has exited.
func (c *Client) Exited() <-chan struct{} { return c.exited }

// ExitCode is the host's exit status (-1 if killed); valid once Exited is closed.
func (c *Client) ExitCode() int { return c.cmd.ProcessState.ExitCode() }

// Pid is the host's process id.
func (c *Client) Pid() int { return c.cmd.Process.Pid }

// Stop closes the host's stdin and waits up to grace for it to exit, then
// kills it. It reports whether the host had to be killed.
func (c *Client) Stop(grace time.Duration) (killed bool) {
	c.CloseInput()
	select {
	case <-c.exited:
	case <-time.After(grace):
		c.cmd.Process.Kill()
		<-c.exited
		killed = true
	}
	if c.cfg.inline {
		c.out.Close() // no reading goroutine closes it
	}
	return killed
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/gnosis/gnosis/host/chunk"
	"github.com/gnosis/gnosis/host/framing"
	"github.com/gnosis/gnosis/host/launch"
)

// callID is the id of the one request call sends; waitID that of its health
// probes while providers start.
const (
	callID = `1`
	waitID = `"call.wait"`
)

// runCall implements `gnosis-host call METHOD [PARAMS-JSON]`: it starts this
// binary as a child exactly as a browser does (our extension's origin as
// argument, the host's folder as working directory, the same environment,
// framed JSON on stdin/stdout), sends one request, reassembles a chunked
// reply, prints the reply's JSON on stdout, and exits non-zero when the reply
// says "ok": false. Unless --no-wait, it first waits (polling health) until
// no provider is still starting, as a user of the extension would.
func runCall(args []string) error {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	noWait := fs.Bool("no-wait", false, "send at once, without waiting for providers to finish starting")
	verbose := fs.Bool("verbose", false, "show the host's log (stderr)")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up after this long")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: gnosis-host %s\n", callUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitCode(2)
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return exitCode(2)
	}
	params := json.RawMessage(`{}`)
	if fs.NArg() == 2 {
		params = json.RawMessage(fs.Arg(1))
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(params, &obj); err != nil || obj == nil {
			return fmt.Errorf("params must be a JSON object: %s", fs.Arg(1))
		}
	}
	request, err := json.Marshal(map[string]any{"id": json.RawMessage(callID), "method": fs.Arg(0), "params": params})
	if err != nil {
		return err
	}

	h, err := startChild(*verbose)
	if err != nil {
		return err
	}
	defer h.stop()
	deadline := time.After(*timeout)

	if !*noWait {
		// Bounded separately, so that a provider stuck starting still
		// leaves time for the request itself.
		if err := h.waitSettled(time.After(min(settleWait, *timeout/2))); err != nil {
			return err
		}
	}
	if err := h.send(request); err != nil {
		return err
	}
	reply, err := h.await(callID, deadline)
	if err != nil {
		return err
	}
	os.Stdout.Write(append(reply, '\n'))
	var r struct{ OK bool }
	if json.Unmarshal(reply, &r) != nil || !r.OK {
		return exitCode(1)
	}
	return nil
}

// settleWait bounds the wait for providers to finish starting: a little more
// than a provider's start-up timeout (mcpprovider.DefaultStartTimeout).
const settleWait = 35 * time.Second

// child is a host process started the way a browser starts one.
type child struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	msgs  chan []byte // whole messages, chunked replies reassembled
	rerr  chan error  // why the output ended
	ended bool
}

func startChild(verbose bool) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locating this binary: %w", err)
	}
	cmd := exec.Command(exe, launch.OurOrigin)
	cmd.Dir = filepath.Dir(exe)
	if verbose {
		cmd.Stderr = os.Stderr
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the host: %w", err)
	}
	c := &child{cmd: cmd, in: in, msgs: make(chan []byte, 16), rerr: make(chan error, 1)}
	go c.read(out)
	return c, nil
}

// read turns the child's frames into messages.
func (c *child) read(out io.Reader) {
	r := framing.NewReader(out, framing.MaxInbound)
	var j chunk.Joiner
	for {
		body, err := r.Read()
		if err != nil {
			c.rerr <- err
			close(c.msgs)
			return
		}
		msg, err := j.Add(body)
		if err != nil {
			c.rerr <- err
			close(c.msgs)
			return
		}
		if msg != nil {
			c.msgs <- msg
		}
	}
}

func (c *child) send(body []byte) error {
	if err := framing.Write(c.in, body); err != nil {
		return fmt.Errorf("sending to the host: %w", err)
	}
	return nil
}

var errTimeout = errors.New("timed out waiting for the host's reply")

// await returns the reply (a message with "ok") whose id is id; events and
// other replies are skipped.
func (c *child) await(id string, deadline <-chan time.Time) ([]byte, error) {
	for {
		select {
		case msg, ok := <-c.msgs:
			if !ok {
				err := <-c.rerr
				if errors.Is(err, io.EOF) {
					return nil, errors.New("the host exited without replying (run with --verbose to see its log)")
				}
				return nil, fmt.Errorf("reading from the host: %w", err)
			}
			var m struct {
				ID json.RawMessage `json:"id"`
				OK *bool           `json:"ok"`
			}
			if json.Unmarshal(msg, &m) == nil && m.OK != nil && bytes.Equal(m.ID, []byte(id)) {
				return msg, nil
			}
		case <-deadline:
			return nil, errTimeout
		}
	}
}

// waitSettled polls health until no provider is starting.
func (c *child) waitSettled(deadline <-chan time.Time) error {
	probe := []byte(`{"id":` + waitID + `,"method":"health"}`)
	for {
		if err := c.send(probe); err != nil {
			return err
		}
		reply, err := c.await(waitID, deadline)
		if err != nil {
			if errors.Is(err, errTimeout) {
				return nil // send the request anyway: its reply says what is wrong
			}
			return err
		}
		var h struct {
			OK        bool
			Providers []struct{ State string }
		}
		json.Unmarshal(reply, &h)
		starting := false
		for _, p := range h.Providers {
			starting = starting || p.State == "starting"
		}
		if !h.OK || !starting {
			return nil
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			return nil // send the request anyway: its reply says what is wrong
		}
	}
}

// stop closes the child's stdin, as a browser closing the port does, and
// waits for it to exit (it must within a second; it is killed after three).
func (c *child) stop() {
	c.in.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}

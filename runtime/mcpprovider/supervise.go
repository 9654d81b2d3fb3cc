package mcpprovider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gnosis/gnosis/runtime"
)

// stopGrace is how long a child gets to exit after its stdin closes before
// its process tree is killed.
const stopGrace = 250 * time.Millisecond

// supervise keeps a child running until ctx ends: start, discover, serve
// list_changed, and when the child dies, report down and restart after a
// backoff that doubles up to backoffMax and resets once a child stayed up
// for healthyAfter.
func (p *Provider) supervise(ctx context.Context) {
	defer close(p.done)
	delay := p.backoffInitial
	lastErr := ""
	for {
		deadline := p.clock.Now().Add(p.startTimeout)
		p.mu.Lock()
		p.deadline = deadline // before the state says starting: a call waits until then
		p.mu.Unlock()
		p.setStatus(runtime.Status{State: runtime.StateStarting, Err: lastErr}, false)
		s, tools, err := p.startSession(ctx, deadline)
		if err != nil {
			if ctx.Err() != nil {
				p.setStatus(runtime.Status{State: runtime.StateDown}, false)
				return
			}
			stderr := ""
			var se *startError
			if errors.As(err, &se) {
				stderr = se.stderr
			}
			lastErr = withStderr(err.Error(), stderr)
			p.log.Warn().Err(err).Dur("retry_in", delay).Msg("provider failed to start")
			p.setStderr(stderr)
			p.setStatus(runtime.Status{State: runtime.StateDown, Err: lastErr}, false)
		} else {
			p.mu.Lock()
			p.tools, p.current, p.stderr = tools, s, ""
			p.mu.Unlock()
			p.setStatus(runtime.Status{State: runtime.StateReady}, true)
			up := p.clock.Now()
			p.serve(ctx, s)
			p.mu.Lock()
			p.current = nil
			p.mu.Unlock()
			if ctx.Err() != nil {
				s.stop(stopGrace)
				p.setStatus(runtime.Status{State: runtime.StateDown}, false)
				return
			}
			p.log.Warn().Str("error", describeExit(s.exitErr)).Dur("retry_in", delay).Msg("provider exited")
			stderr := p.stderrOf(s)
			lastErr = withStderr(describeExit(s.exitErr), stderr)
			p.setStderr(stderr)
			p.setStatus(runtime.Status{State: runtime.StateDown, Err: lastErr}, false)
			if p.clock.Now().Sub(up) >= p.healthyAfter {
				delay = p.backoffInitial
			}
		}
		select {
		case <-ctx.Done():
			p.setStatus(runtime.Status{State: runtime.StateDown, Err: lastErr}, false)
			return
		case <-p.clock.After(delay):
		}
		delay = min(delay*2, p.backoffMax)
	}
}

// startSession launches a child, initializes it and lists its tools, all
// before deadline (startTimeout after the attempt began). A failure says which of these went wrong: the child
// could not be started, exited, never answered, or wrote something other
// than JSON-RPC on stdout; and with what the child last wrote on stderr.
func (p *Provider) startSession(ctx context.Context, deadline time.Time) (*session, []runtime.Tool, error) {
	s, err := launch(ctx, p.cfg, p.log, p.maxMessage, p.clock)
	if err != nil {
		return nil, nil, err
	}
	sctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	step := "initialize"
	err = s.initialize(sctx, p.clientName, p.clientVersion)
	var tools []runtime.Tool
	if err == nil {
		step = "tools/list"
		tools, err = s.listTools(sctx)
	}
	if err == nil {
		return s, tools, nil
	}
	if ctx.Err() != nil {
		s.stop(0)
		return nil, nil, err
	}
	timedOut := errors.Is(sctx.Err(), context.DeadlineExceeded)
	exited := errors.Is(err, errExited)
	if !exited && !timedOut {
		// A write into a closed pipe can fail before the child is reaped.
		select {
		case <-s.exited:
			exited = true
		case <-time.After(200 * time.Millisecond):
		}
	}
	if exited {
		<-s.exited
	}
	s.stop(0)
	return nil, nil, p.startFailure(s, step, exited, timedOut, err)
}

// startFailure words why a child did not get through step of start-up.
func (p *Provider) startFailure(s *session, step string, exited, timedOut bool, err error) error {
	var reason string
	junk := s.tr.nonJSON()
	switch {
	case exited:
		reason = fmt.Sprintf("%s before answering %s", describeExit(s.exitErr), step)
		if junk != "" {
			reason += fmt.Sprintf("; it wrote non-JSON on stdout: %q", junk)
		}
	case junk != "":
		reason = fmt.Sprintf("wrote non-JSON on stdout instead of answering %s: %q (an MCP stdio server writes only JSON-RPC there; logs belong on stderr)", step, junk)
	case timedOut:
		reason = fmt.Sprintf("did not answer %s within %s (startTimeout)", step, p.startTimeout)
	default:
		reason = err.Error()
	}
	return &startError{reason: reason, stderr: p.stderrOf(s), err: err}
}

// stderrDrain bounds the wait for a dead child's stderr to end: long enough
// for a loaded machine to read and log what it wrote last (a flood of
// hundreds of lines), short enough when a grandchild keeps the pipe open.
const stderrDrain = 2 * time.Second

// startError is a failed start-up: the reason, the child's last stderr
// lines, and the error underneath.
type startError struct {
	reason string
	stderr string
	err    error
}

func (e *startError) Error() string { return e.reason }
func (e *startError) Unwrap() error { return e.err }

// stderrOf returns the last lines s's child wrote to stderr, once its stderr
// has ended (or after stderrDrain, should a grandchild hold it open).
func (p *Provider) stderrOf(s *session) string {
	s.stderr.wait(stderrDrain)
	return s.stderr.String()
}

// withStderr is reason followed by the line of stderr that says what went
// wrong (headline), the server's own account: "exited (exit status 1) before
// answering initialize; stderr: Error: Cannot find module './x'".
func withStderr(reason, stderr string) string {
	line := headline(stderr)
	if line == "" {
		return reason
	}
	return reason + "; stderr: " + line
}

// serve waits for the child to exit or ctx to end, re-reading the tool list
// whenever the server says it changed.
func (p *Provider) serve(ctx context.Context, s *session) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.exited:
			return
		case <-s.listChanged:
			lctx, cancel := context.WithTimeout(ctx, p.startTimeout)
			tools, err := s.listTools(lctx)
			cancel()
			if err != nil {
				p.log.Warn().Err(err).Msg("re-reading tools after list_changed failed")
				continue
			}
			p.mu.Lock()
			p.tools = tools
			p.mu.Unlock()
			p.setStatus(runtime.Status{State: runtime.StateReady}, true)
		}
	}
}

// describeExit words how a child ended: "exited (exit status 3)",
// "exited (signal: killed)".
func describeExit(err error) string {
	if err == nil {
		return "exited (exit status 0)"
	}
	return "exited (" + err.Error() + ")"
}

// setStderr records the last stderr lines of the child that failed.
func (p *Provider) setStderr(stderr string) {
	p.mu.Lock()
	p.stderr = stderr
	p.mu.Unlock()
}

// Stderr returns the last lines (at most 20, 4 KiB) the server wrote on
// stderr before it last failed to start or exited; "" while it runs or when
// it wrote nothing. The runtime shows them in health.
func (p *Provider) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr
}

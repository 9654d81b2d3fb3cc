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
		p.setStatus(runtime.Status{State: runtime.StateStarting, Err: lastErr}, false)
		s, tools, err := p.startSession(ctx)
		if err != nil {
			if ctx.Err() != nil {
				p.setStatus(runtime.Status{State: runtime.StateDown}, false)
				return
			}
			lastErr = err.Error()
			p.log.Warn().Err(err).Dur("retry_in", delay).Msg("provider failed to start")
			p.setStatus(runtime.Status{State: runtime.StateDown, Err: lastErr}, false)
		} else {
			p.mu.Lock()
			p.tools, p.current = tools, s
			p.mu.Unlock()
			p.setStatus(runtime.Status{State: runtime.StateReady}, true)
			up := time.Now()
			p.serve(ctx, s)
			p.mu.Lock()
			p.current = nil
			p.mu.Unlock()
			if ctx.Err() != nil {
				s.stop(stopGrace)
				p.setStatus(runtime.Status{State: runtime.StateDown}, false)
				return
			}
			lastErr = describeExit(s.exitErr)
			p.log.Warn().Str("error", lastErr).Dur("retry_in", delay).Msg("provider exited")
			p.setStatus(runtime.Status{State: runtime.StateDown, Err: lastErr}, false)
			if time.Since(up) >= p.healthyAfter {
				delay = p.backoffInitial
			}
		}
		select {
		case <-ctx.Done():
			p.setStatus(runtime.Status{State: runtime.StateDown, Err: lastErr}, false)
			return
		case <-time.After(delay):
		}
		delay = min(delay*2, p.backoffMax)
	}
}

// startSession launches a child, initializes it and lists its tools, all
// within startTimeout.
func (p *Provider) startSession(ctx context.Context) (*session, []runtime.Tool, error) {
	s, err := launch(ctx, p.cfg, p.log)
	if err != nil {
		return nil, nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, p.startTimeout)
	defer cancel()
	err = s.initialize(sctx, p.clientName, p.clientVersion)
	var tools []runtime.Tool
	if err == nil {
		tools, err = s.listTools(sctx)
	}
	if err != nil {
		if errors.Is(err, errExited) {
			<-s.exited
			err = fmt.Errorf("%s (%w)", describeExit(s.exitErr), err)
		}
		s.stop(0)
		return nil, nil, err
	}
	return s, tools, nil
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

func describeExit(err error) string {
	if err == nil {
		return "the server exited (status 0)"
	}
	return "the server exited: " + err.Error()
}

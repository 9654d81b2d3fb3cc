package providers

import (
	"context"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/host/shellquote"
	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
)

// DefaultCheckTimeout bounds a providers.check whose params set no
// startTimeout: the start-up limit a provider gets by default.
const DefaultCheckTimeout = DefaultStartTimeout

// checkReply is what providers.check found.
type checkReply struct {
	Command string `json:"command"`
	// Status is "ok" (it answered as an MCP server and listed its tools),
	// "not-found" (no file there), "not-a-program" (a folder, a file that
	// is not executable) or "failed" (it ran but did not answer as an MCP
	// server in time: Error and Stderr say how).
	Status    string   `json:"status"`
	Message   string   `json:"message"`
	Fix       string   `json:"fix,omitempty"`
	ToolCount int      `json:"toolCount"`
	Tools     []string `json:"tools"`
	Error     string   `json:"error,omitempty"`
	Stderr    string   `json:"stderr,omitempty"`
	TookMs    int64    `json:"tookMs"`
}

// check starts the program as an MCP server the way the host would, waits
// until it has listed its tools or failed (within its startTimeout), stops
// it, and reports what it found.
func (p *Providers) check(ctx context.Context, params json.RawMessage) (any, error) {
	e, err := decodeEntry(params, false)
	if err != nil {
		return nil, err
	}
	var current *config.Provider
	if e.Name != "" {
		cfg, _, _ := config.Load(p.configLoadEnv)
		current = findProvider(cfg.Providers, e.Name)
	}
	env, err := keepEnv(e.Env, current)
	if err != nil {
		return nil, err
	}
	if e.Args, err = restoreArgs(e.Args, storedArgs(current)); err != nil {
		return nil, err
	}
	out := checkReply{Command: e.Command, Tools: []string{}}
	if kind, problem, fix := program(e.Command); kind != "" {
		out.Status, out.Message, out.Fix = kind, problem, fix
		return out, nil
	}
	select {
	case p.checks <- struct{}{}:
		defer func() { <-p.checks }()
	case <-ctx.Done():
		return nil, wire.Errorf(wire.CodeCancelled, "providers.check cancelled while waiting for another check to end")
	}
	limit := e.StartTimeout
	if limit == 0 {
		limit = DefaultCheckTimeout
	}
	name := e.Name
	if name == "" {
		name = "check"
	}
	start := time.Now()
	prov := p.build(config.Provider{Name: name, Command: e.Command, Args: e.Args, Env: env, Prefix: "check",
		Timeout: config.Duration(limit), StartTimeout: config.Duration(limit)})
	st, tools, err := firstOutcome(ctx, prov, limit)
	stderr := ""
	if k, ok := prov.(interface{ Stderr() string }); ok {
		stderr = k.Stderr()
	}
	prov.Close()
	out.TookMs = time.Since(start).Milliseconds()
	if err != nil {
		return nil, err
	}
	line := shellquote.Line(goruntime.GOOS, e.Command, e.Args)
	p.log.Info().Str("command", e.Command).Str("state", string(st.State)).Int("tools", len(tools)).Int64("tookMs", out.TookMs).Msg("provider checked")
	if st.State != runtime.StateReady {
		reason := p.secrets.Redact(st.Err)
		out.Status, out.Error, out.Stderr = "failed", reason, p.secrets.Redact(stderr)
		out.Message = fmt.Sprintf("%s did not start as an MCP server: %s", e.Command, reason)
		out.Fix = p.secrets.Redact(failureFix(st.Err, line))
		return out, nil
	}
	for _, t := range tools {
		out.Tools = append(out.Tools, t.Name)
	}
	out.Status, out.ToolCount = "ok", len(tools)
	out.Message = fmt.Sprintf("%s answered as an MCP server and lists %d tools", e.Command, len(tools))
	if len(tools) == 0 {
		out.Message = e.Command + " answered as an MCP server but lists no tools"
		out.Fix = "check its arguments: some servers enable their tools with an option; run it by hand to see: " + line
	}
	return out, nil
}

// firstOutcome starts prov and waits for it to be ready or down, at most
// limit (and a little, for the provider to say so itself) or until ctx
// ends. A status still "starting" at the end is reported as a failure.
func firstOutcome(ctx context.Context, prov runtime.Provider, limit time.Duration) (runtime.Status, []runtime.Tool, error) {
	var mu sync.Mutex
	var last runtime.Status
	settled := make(chan struct{})
	var once sync.Once
	notify := func(c runtime.Change) {
		if c.Status.State == runtime.StateStarting {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		select {
		case <-settled:
			return // the first outcome counts; a restart after it does not
		default:
		}
		last = c.Status
		once.Do(func() { close(settled) })
	}
	runCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := prov.Start(runCtx, notify); err != nil {
		return runtime.Status{State: runtime.StateDown, Err: err.Error()}, nil, nil
	}
	timer := time.NewTimer(limit + 2*time.Second)
	defer timer.Stop()
	select {
	case <-settled:
	case <-timer.C:
		return runtime.Status{State: runtime.StateDown, Err: fmt.Sprintf("did not answer initialize and tools/list within %s (startTimeout)", limit)}, nil, nil
	case <-ctx.Done():
		return runtime.Status{}, nil, wire.Errorf(wire.CodeCancelled, "providers.check cancelled")
	}
	mu.Lock()
	defer mu.Unlock()
	if last.State == runtime.StateReady {
		return last, prov.Tools(), nil
	}
	return last, nil, nil
}

// failureFix says what to do about a server that did not start, from the
// provider's own account of it.
func failureFix(err, line string) string {
	switch {
	case strings.Contains(err, "startTimeout"):
		return "if it is only slow to start (a first download), raise startTimeout; otherwise run it by hand to see what it waits for: " + line
	case strings.Contains(err, "non-JSON on stdout"):
		return "this program does not speak MCP on stdout: check that it is an MCP stdio server and its arguments (many servers need one such as stdio); run it by hand to see: " + line
	case strings.Contains(err, "exited"):
		return "it stopped by itself; its own words are in stderr; run it by hand to see it fail: " + line
	}
	return "run it by hand to see it fail: " + line
}

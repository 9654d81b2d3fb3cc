package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/host/grants"
	"github.com/gnosis/gnosis/host/launch"
	"github.com/gnosis/gnosis/host/logging"
	"github.com/gnosis/gnosis/host/relay"
	"github.com/gnosis/gnosis/host/session"
	"github.com/gnosis/gnosis/host/workspace"
	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/mcpprovider"
)

// EnvCPUProfile names a file to write a CPU profile of the serving host to
// (a developer's knob for benchmarks; unset in normal use).
const EnvCPUProfile = "GNOSIS_CPUPROFILE"

// EnvMaxFrame lowers the outbound frame limit (bytes), for tests of chunking.
const EnvMaxFrame = "GNOSIS_MAX_FRAME"

// serve speaks the protocol on stdin/stdout for a browser until it closes
// the port. Nothing here stops the host early: a broken configuration, an
// unusable log file or an untrusted caller are all reported through the
// protocol (health, FORBIDDEN) rather than by exiting.
func serve(l launch.Launch) error {
	out, err := privateStdout()
	if err != nil {
		return err
	}
	defer out.Close()

	if path := os.Getenv(EnvCPUProfile); path != "" {
		if stop, err := startCPUProfile(path); err == nil {
			defer stop()
		}
	}

	cfg, cfgPath, problem := config.Load(os.Getenv)
	log, logFile, logErr := logging.New(logging.Options{Level: cfg.Log.Level, File: cfg.Log.File, MaxBytes: cfg.Log.MaxBytes})
	defer logFile.Close()
	if logErr != nil {
		log.Warn().Err(logErr).Msg("logging")
	}
	log.Info().Str("version", version).Str("origin", l.Origin).Int64("parentWindow", l.ParentWindow).
		Str("config", cfgPath).Int("pid", os.Getpid()).Msg("serving")

	var reasons []string
	if problem != nil {
		log.Warn().Err(problem).Msg("configuration")
		reasons = append(reasons, problem.Error())
	}

	opts := []session.Option{session.WithVersion(version), session.WithLogger(log)}
	inflight := cfg.Limits.InflightBytes
	if inflight <= 0 {
		inflight = config.DefaultInflightBytes
	}
	opts = append(opts, session.WithMaxInflightBytes(inflight))
	if v := os.Getenv(EnvMaxFrame); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			log.Warn().Str(EnvMaxFrame, v).Msg("ignored: not a positive number of bytes")
		} else {
			opts = append(opts, session.WithMaxFrame(n))
		}
	}
	trusted := l.Trusted(cfg.Extensions)
	if !trusted {
		reason := fmt.Sprintf("caller %s is not a trusted extension: add its id to \"extensions\" in %s to allow it", l.Origin, cfgPath)
		log.Warn().Str("origin", l.Origin).Msg("untrusted caller; every request will be answered FORBIDDEN")
		opts = append(opts, session.WithForbidden(reason))
	}

	// Both return a working (if unconfigured) value with their error: a bad
	// section degrades health, it does not stop the host.
	ws, wsErr := openWorkspace(cfg.Workspace, log)
	rl, rlErr := newRelay(cfg.Relay, log)
	for _, err := range []error{wsErr, rlErr} {
		if err != nil {
			log.Warn().Err(err).Msg("configuration")
			reasons = append(reasons, err.Error())
		}
	}
	defer ws.Close()
	for name, m := range ws.Methods() {
		opts = append(opts, session.WithMethod(name, adapt(m)))
	}
	for name, m := range rl.Methods() {
		opts = append(opts, session.WithMethod(name, adapt(m)))
	}
	// The runtime reports events to the session, which is built last: it
	// serves the grants, which need the runtime. Events start with rt.Start,
	// after s is set.
	var s *session.Session
	rtOpts := []runtime.Option{
		runtime.WithLogger(log),
		runtime.WithEvents(func(e runtime.Event) { s.Event(e) }),
		runtime.WithPolicy(cfg.Policy.Runtime()),
	}
	if len(reasons) > 0 {
		rtOpts = append(rtOpts, runtime.WithDegraded(strings.Join(reasons, "; ")))
	}
	for _, p := range cfg.Providers {
		rtOpts = append(rtOpts, runtime.WithProvider(mcpprovider.New(mcpprovider.Config{
			Name: p.Name, Command: p.Command, Args: p.Args, Env: p.Env, Prefix: p.Prefix, Timeout: time.Duration(p.Timeout),
			StartTimeout: time.Duration(max(p.StartTimeout, 0)),
		}, mcpprovider.WithLogger(log), mcpprovider.WithClientInfo("gnosis-host", version))))
	}
	rt := runtime.New(rtOpts...)

	gr := grants.New(rt, cfgPath, grants.WithAskTimeout(time.Duration(cfg.Policy.AskTimeout)), grants.WithLogger(log))
	for name, m := range gr.Methods() {
		opts = append(opts, session.WithMethod(name, adapt(m)))
	}
	opts = append(opts, session.WithMethod("report", reportMethod(cfgPath, rt.Health)))
	opts = append(opts, session.WithApprover(func(ctx context.Context, c *session.Call, a runtime.Approval) error {
		return gr.Ask(ctx, c.ID, c.Emit, a)
	}))
	s = session.New(opts...)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// An untrusted caller must not make the host start any program.
	if trusted {
		if err := rt.Start(ctx); err != nil {
			log.Warn().Err(err).Msg("starting providers")
		}
	}
	err = s.Serve(ctx, rt, os.Stdin, out)
	log.Info().Err(err).Msg("stopped")
	return err
}

// adapt turns a host method of the workspace or relay packages (which do not
// depend on the session) into a session.Method.
func adapt[M ~func(ctx context.Context, id, params json.RawMessage, emit func(any) error) (any, error)](m M) session.Method {
	return func(ctx context.Context, c *session.Call) (any, error) { return m(ctx, c.ID, c.Params, c.Emit) }
}

// openWorkspace opens the configured workspace folder; with none (or a
// malformed section) the workspace methods answer NOT_CONFIGURED.
func openWorkspace(raw json.RawMessage, log zerolog.Logger) (*workspace.Workspace, error) {
	var c workspace.Config
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &c); err != nil {
			return workspace.Open("", workspace.WithLogger(log)), fmt.Errorf("config: workspace: %w", err)
		}
	}
	return workspace.Open(c.Dir, workspace.WithLogger(log)), nil
}

// newRelay prepares the model relay from the "relay" section.
func newRelay(raw json.RawMessage, log zerolog.Logger) (*relay.Relay, error) {
	var c relay.Config
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &c); err != nil {
			return relay.New(relay.Config{}, relay.WithLogger(log)), fmt.Errorf("config: relay: %w", err)
		}
	}
	return relay.New(c, relay.WithLogger(log)), nil
}

// startCPUProfile profiles the process into path until the returned stop.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

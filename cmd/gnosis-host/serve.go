package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	goruntime "runtime"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/host/grants"
	"github.com/gnosis/gnosis/host/launch"
	"github.com/gnosis/gnosis/host/logging"
	"github.com/gnosis/gnosis/host/providers"
	"github.com/gnosis/gnosis/host/redact"
	"github.com/gnosis/gnosis/host/relay"
	"github.com/gnosis/gnosis/host/session"
	"github.com/gnosis/gnosis/host/workspace"
	"github.com/gnosis/gnosis/internal/pipesize"
	"github.com/gnosis/gnosis/runtime"
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
	// The browser reads frames 4 KiB at a time: a whole frame waits in the pipe, not in a writer woken page by page.
	pipesize.Widen(out, pipesize.Frame)
	spareProcessor()

	if path := os.Getenv(EnvCPUProfile); path != "" {
		if stop, err := startCPUProfile(path); err == nil {
			defer stop()
		}
	}

	cfg, cfgPath, problem := config.Load(os.Getenv)
	secrets := knownSecrets(cfg)
	log, logFile, logErr := logging.New(logging.Options{Level: cfg.Log.Level, File: cfg.Log.File, MaxBytes: cfg.Log.MaxBytes, Secrets: secrets})
	defer logFile.Close()
	if logErr != nil {
		log.Warn().Err(logErr).Msg("logging")
	}
	log.Info().Str("version", version).Str("origin", l.Origin).Int64("parentWindow", l.ParentWindow).
		Str("config", cfgPath).Int("pid", os.Getpid()).Msg("serving")
	if problem != nil {
		log.Warn().Err(problem).Msg("configuration")
	}

	ws := openWorkspace(cfg.Workspace, log)
	defer ws.Close()
	rl := relay.New(cfg.Relay, relay.WithLogger(log))

	build := providers.MCP(log, version)
	events := make(chan runtime.Event, eventQueue)
	rt := newRuntime(cfg, problem, build, log, events)
	trusted := l.Trusted(cfg.Extensions)
	s := newSession(l, trusted, cfg, cfgPath, log, rt, build, secrets, session.WithMethods(ws.Methods()), session.WithMethods(rl.Methods()))
	go forward(events, s)

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

// eventQueue is how many runtime events wait for the session before the
// runtime's reports block (as many as the session's own queue holds).
const eventQueue = 256

// forward hands the runtime's events to the session, in order. The runtime
// is built before the session (the session's grant and provider methods
// need it), so it reports into a queue the session drains; once the session
// has stopped serving, Event drops them.
func forward(events <-chan runtime.Event, s *session.Session) {
	for e := range events {
		s.Event(e)
	}
}

// newRuntime builds the runtime over cfg's providers, reporting its events
// to events. The config file's problems (its workspace and relay sections'
// included) are recorded under configProblem and re-read each time
// the host writes the file (fileState.reload).
func newRuntime(cfg config.Config, problem error, build providers.Build, log zerolog.Logger, events chan<- runtime.Event) *runtime.Runtime {
	opts := []runtime.Option{
		runtime.WithLogger(log),
		runtime.WithEvents(func(e runtime.Event) { events <- e }),
		runtime.WithPolicy(cfg.Policy.Runtime()),
	}
	for _, p := range cfg.Providers {
		opts = append(opts, runtime.WithProvider(build(p)))
		if p.AssertFormats {
			opts = append(opts, runtime.WithFormatAssertion(p.Name))
		}
	}
	rt := runtime.New(opts...)
	if problem != nil {
		rt.SetProblem(configProblem, problem.Error())
	}
	return rt
}

// configProblem is the runtime's problem source for the config file.
const configProblem = "config"

// fileState is what the host keeps of the config file as last read: its
// problems go to the runtime, its longest per-call limit to health.
type fileState struct {
	rt          *runtime.Runtime
	callTimeout atomic.Int64 // nanoseconds
}

// newFileState starts from the file as read at start-up.
func newFileState(rt *runtime.Runtime, cfg config.Config) *fileState {
	f := &fileState{rt: rt}
	f.callTimeout.Store(int64(cfg.CallTimeout()))
	return f
}

// reload re-reads the config file's problems into the runtime and its
// per-call limit: after policy.set or providers.set, health says what the
// file says now (a clash resolved, a first provider added, a new timeout).
func (f *fileState) reload() {
	cfg, _, problem := config.Load(os.Getenv)
	reason := ""
	if problem != nil {
		reason = problem.Error()
	}
	f.rt.SetProblem(configProblem, reason)
	f.callTimeout.Store(int64(cfg.CallTimeout()))
}

// CallTimeout is the per-call limit health reports.
func (f *fileState) CallTimeout() time.Duration { return time.Duration(f.callTimeout.Load()) }

// newSession builds the session that serves rt to the caller l: the
// built-in methods, the workspace's and the relay's (extra), the grant
// methods and the provider methods, all answered FORBIDDEN for a caller
// that is not trusted.
func newSession(l launch.Launch, trusted bool, cfg config.Config, cfgPath string, log zerolog.Logger, rt *runtime.Runtime,
	build providers.Build, secrets *redact.Set, extra ...session.Option) *session.Session {
	opts := []session.Option{session.WithVersion(version), session.WithLogger(log), session.WithSecrets(secrets)}
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
	if !trusted {
		reason := fmt.Sprintf("caller %s is not a trusted extension: add its id to \"extensions\" in %s to allow it", l.Origin, cfgPath)
		log.Warn().Str("origin", l.Origin).Msg("untrusted caller; every request will be answered FORBIDDEN")
		opts = append(opts, session.WithForbidden(reason))
	}
	opts = append(opts, extra...)
	file := newFileState(rt, cfg)
	saved := file.reload
	opts = append(opts, session.WithCallTimeout(file.CallTimeout))
	gr := grants.New(rt, cfgPath, grants.WithAskTimeout(time.Duration(cfg.Policy.AskTimeout)), grants.WithLogger(log),
		grants.WithClashes(cfg.Policy.Clashes), grants.WithSaved(saved))
	opts = append(opts, session.WithMethods(gr.Methods()))
	pr := providers.New(rt, cfgPath, build, providers.WithLogger(log), providers.WithSaved(saved), providers.WithSecrets(secrets))
	opts = append(opts, session.WithMethods(pr.Methods()))
	opts = append(opts, session.WithMethod("report", reportMethod(cfgPath, rt.Health, secrets)))
	opts = append(opts, session.WithApprover(func(ctx context.Context, c *session.Call, a runtime.Approval) error {
		return gr.Ask(ctx, c.ID, c.Emit, a)
	}))
	return session.New(opts...)
}

// knownSecrets starts the host's set of secret values (package redact) with
// those it knows from the start: the secret-named variables of its own
// environment and of each provider's env in cfg. The session adds those it
// sees in requests.
func knownSecrets(cfg config.Config) *redact.Set {
	s := &redact.Set{}
	s.AddEnviron(os.Environ())
	for _, p := range cfg.Providers {
		s.AddEnv(p.Env)
	}
	return s
}

// openWorkspace opens the configured workspace folder; with none the
// workspace methods answer NOT_CONFIGURED.
func openWorkspace(c config.Workspace, log zerolog.Logger) *workspace.Workspace {
	return workspace.Open(c.Dir, workspace.WithLogger(log))
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

// spareProcessor gives the Go scheduler one processor more than the
// machine's (unless GOMAXPROCS is set): a call whose arguments take long
// to validate keeps one busy, and the request reader, which waits in a
// read of stdin, holds another while it does; with none left, the writer
// that sends health's reply would wait for the scheduler to take that one
// back (tens of microseconds to milliseconds). With a spare, health and
// cancel are answered while a call validates as fast as when none does
// (make bench, "validation never holds the host").
func spareProcessor() {
	if os.Getenv("GOMAXPROCS") == "" {
		goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0) + 1)
	}
}

package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/host/logging"
	"github.com/gnosis/gnosis/host/redact"
	"github.com/gnosis/gnosis/host/register"
	"github.com/gnosis/gnosis/host/report"
	"github.com/gnosis/gnosis/host/session"
	"github.com/gnosis/gnosis/runtime"
)

const reportUsage = "report [--no-self-test]\n\tprint a diagnostic report to paste into a bug report (secrets redacted)"

// runReport implements `gnosis-host report`: doctor's checks with its
// self-test (which starts the registered host and gives the providers'
// states), then the report of package report on stdout.
func runReport(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	noSelfTest := fs.Bool("no-self-test", false, "do not start the registered host (the report then has no provider states)")
	if err := fs.Parse(args); err != nil {
		return helpIsNoError(err)
	}
	env, err := register.CurrentEnv()
	if err != nil {
		return err
	}
	opts := doctorOptions(env, "", !*noSelfTest)
	checks, health, err := register.DoctorHealth(opts)
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	o := baseReport(env.ConfigFile, checks)
	o.DoctorNote = "`gnosis-host doctor`, run by " + opts.Self + ":"
	switch {
	case *noSelfTest:
		o.ProvidersNote = "Not known: the report ran with --no-self-test."
	case health == nil:
		o.ProvidersNote = "Not known: no host answered doctor's self-test (its rows say why)."
	default:
		o.ProvidersNote = "As the host doctor started answered health."
		if health.Error != "" {
			o.ProvidersNote += " Configuration: " + health.Error
		}
		for _, p := range health.Providers {
			o.Providers = append(o.Providers, report.Provider{Name: p.Name, Prefix: p.Prefix, State: p.State,
				Capabilities: p.Capabilities, Error: p.Error, Stderr: p.Stderr})
		}
	}
	_, err = fmt.Print(report.Text(o))
	return err
}

// reportMethod is the host's report method: the same report, from this
// host's own state. Doctor runs without its self-test (this host is the one
// the browser started), so nothing is started and the answer is quick.
func reportMethod(configFile string, health func() runtime.Health, secrets *redact.Set) session.Method {
	return func(context.Context, *session.Call) (any, error) {
		var checks []register.Check
		note := "Doctor's checks, as the host the browser started sees them (no self-test: this is that host):"
		if env, err := register.CurrentEnv(); err == nil {
			checks, err = register.Doctor(doctorOptions(env, "", false))
			if err != nil {
				note = "Doctor could not run: " + err.Error()
			}
		}
		o := baseReport(configFile, checks)
		o.DoctorNote = note
		o.Secrets = secrets
		h := health()
		o.ProvidersNote = "As this host sees them."
		if h.Error != "" {
			o.ProvidersNote += " Configuration: " + h.Error
		}
		for _, p := range h.Providers {
			o.Providers = append(o.Providers, report.Provider{Name: p.Name, Prefix: p.Prefix, State: string(p.State),
				Capabilities: p.Capabilities, Error: p.Error, Stderr: p.Stderr})
		}
		return reportReply{Text: report.Text(o)}, nil
	}
}

// reportReply is the report method's reply (docs/protocol.md, report).
type reportReply struct {
	Text string `json:"text"`
}

// baseReport fills what both forms of the report share: the versions, the
// configuration file and the log the host writes.
func baseReport(configFile string, checks []register.Check) report.Options {
	o := report.Options{Version: version, Protocol: session.Protocol, Checks: checks, ConfigFile: configFile,
		Environ: os.Environ(), Home: report.HomeDir()}
	cfg, _ := loadConfigFile(configFile)
	o.LogFile, _ = logging.Path(cfg.Log.File)
	return o
}

// loadConfigFile reads the configuration at name as the host would.
func loadConfigFile(name string) (config.Config, error) {
	cfg, _, problem := config.Load(func(k string) string {
		if k == config.EnvConfig {
			return name
		}
		return os.Getenv(k)
	})
	return cfg, problem
}

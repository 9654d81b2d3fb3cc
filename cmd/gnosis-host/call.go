package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/host/framing"
	"github.com/gnosis/gnosis/host/nmclient"
	"github.com/gnosis/gnosis/host/register"
)

// callID is the id of the one request call sends (the health probes while
// providers start have string ids of their own).
const callID = `1`

// runCall implements `gnosis-host call METHOD [PARAMS-JSON]`: it starts this
// binary as a child exactly as a browser does (our extension's origin as
// argument, the host's folder as working directory, the same environment,
// framed JSON on stdin/stdout), sends one request, reassembles a chunked
// reply, prints the reply's JSON on stdout, and exits 1 when the reply says
// "ok": false. Unless --no-wait, it first waits (polling health) until no
// provider is still starting, as a user of the extension would, and then
// names on stderr every provider that is not ready (its state, its reason,
// what it last wrote on stderr) and any configuration problem, and exits 3
// when the reply itself was ok.
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
	if *verbose {
		fmt.Fprintf(os.Stderr, "gnosis-host call: running %s (%s) as a browser would\n", h.bin, version)
	}
	for _, line := range otherHosts(h.bin) {
		fmt.Fprintln(os.Stderr, line)
	}
	deadline := time.After(*timeout)

	var problems []string
	if !*noWait {
		// Bounded separately, so that a provider stuck starting still
		// leaves time for the request itself.
		wait := min(settleWait(), *timeout/2)
		health, err := h.waitSettled(time.After(wait))
		if err != nil {
			return err
		}
		problems = notReady(health, wait, h.bin)
	}
	if err := h.Send(request); err != nil {
		return err
	}
	reply, err := h.await(callID, deadline)
	if err != nil {
		return err
	}
	os.Stdout.Write(append(reply, '\n'))
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	var r struct{ OK bool }
	switch {
	case json.Unmarshal(reply, &r) != nil || !r.OK:
		return exitCode(1)
	case len(problems) > 0:
		return exitCode(exitNotReady)
	}
	return nil
}

// exitNotReady is call's exit status when the reply was ok but a provider is
// not ready or the configuration is broken.
const exitNotReady = 3

// settleWait bounds the wait for providers to finish starting: a little more
// than the longest start-up timeout of the configuration the host will read.
func settleWait() time.Duration {
	cfg, _, _ := config.Load(os.Getenv)
	return register.StartWait(cfg)
}

// notReady words, one paragraph each, the configuration problem and every
// provider that is not ready in a health reply; none when all is well.
// wait is how long call waited for providers still starting; bin is the
// host that answered.
func notReady(health []byte, wait time.Duration, bin string) []string {
	var h register.Health
	if json.Unmarshal(health, &h) != nil || !h.OK {
		return nil
	}
	var out []string
	if h.Error != "" {
		out = append(out, "gnosis-host: configuration: "+h.Error)
	}
	for _, p := range h.Providers {
		if p.State == "ready" {
			continue
		}
		msg := fmt.Sprintf("gnosis-host: provider %s is %s", p.Name, p.State)
		switch {
		case p.State == "starting":
			msg += fmt.Sprintf(" after %s", wait.Round(time.Second))
			if p.Error != "" {
				msg += " (the last attempt: " + p.Error + ")"
			}
		case p.Error != "":
			msg += ": " + p.Error
		}
		if p.Stderr != "" {
			msg += "\n  its last lines on stderr:\n    " + strings.ReplaceAll(p.Stderr, "\n", "\n    ")
		}
		out = append(out, msg)
	}
	if len(out) > 0 {
		out = append(out, fmt.Sprintf("gnosis-host: the host (%s) is not ready (see above); `gnosis-host doctor` says how to fix it", bin))
	}
	return out
}

// child is a host process started the way a browser starts one: this
// binary, bin.
type child struct {
	*nmclient.Client
	bin string
}

func startChild(verbose bool) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locating this binary: %w", err)
	}
	opts := []nmclient.Option{nmclient.WithMaxFrame(framing.MaxInbound)}
	if verbose {
		opts = append(opts, nmclient.WithStderr(os.Stderr))
	}
	c, err := nmclient.Start(exe, opts...)
	if err != nil {
		return nil, fmt.Errorf("starting the host %s: %w", exe, err)
	}
	return &child{c, exe}, nil
}

// await returns the reply whose id is id; events and other replies are skipped.
func (c *child) await(id string, deadline <-chan time.Time) ([]byte, error) {
	reply, err := c.Await(id, deadline)
	if err == nil || errors.Is(err, nmclient.ErrTimeout) {
		return reply, err
	}
	return nil, c.explain(err)
}

// explain words an error reading the host's output for the command line.
func (c *child) explain(err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("the host %s exited without replying (run with --verbose to see its log)", c.bin)
	}
	return fmt.Errorf("reading from the host %s: %w", c.bin, err)
}

// waitSettled polls health until no provider is starting and returns the
// last health reply. Running out of time is no error: the request is sent
// anyway, and its reply says what is wrong.
func (c *child) waitSettled(deadline <-chan time.Time) ([]byte, error) {
	health, err := c.Settle(50*time.Millisecond, deadline)
	if err == nil || errors.Is(err, nmclient.ErrTimeout) {
		return health, nil
	}
	return nil, c.explain(err)
}

// stop closes the child's stdin, as a browser closing the port does, and
// waits for it to exit (it must within a second; it is killed after three).
func (c *child) stop() { c.Stop(3 * time.Second) }

// otherHosts says, one line each, which browsers start another program
// than bin for the host: what call checks is then not what they run.
func otherHosts(bin string) []string {
	env, err := register.CurrentEnv()
	if err != nil {
		return nil
	}
	others := register.Others(register.RegisteredHosts(env, register.SystemRegistry()), bin)
	names := make([]string, 0, len(others))
	for b := range others {
		names = append(names, b)
	}
	sort.Strings(names)
	var out []string
	for _, b := range names {
		verb := "starts"
		if len(others[b]) > 1 {
			verb = "start"
		}
		out = append(out, fmt.Sprintf("gnosis-host call: this ran %s, but %s %s %s; `gnosis-host doctor` checks that one",
			bin, strings.Join(others[b], ", "), verb, b))
	}
	return out
}

package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
)

// idle is a provider that starts and stays starting: enough for the
// runtime's bookkeeping, which these tests check (the real servers run in
// tests/providers_test.go).
type idle struct {
	name, prefix string
	mu           sync.Mutex
	closed       bool
}

func (p *idle) Name() string                                      { return p.name }
func (p *idle) Prefix() string                                    { return p.prefix }
func (p *idle) Start(context.Context, func(runtime.Change)) error { return nil }
func (p *idle) Tools() []runtime.Tool                             { return nil }
func (p *idle) Status() runtime.Status                            { return runtime.Status{State: runtime.StateStarting} }
func (p *idle) Call(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, errors.New("not running")
}
func (p *idle) Close() error { p.mu.Lock(); p.closed = true; p.mu.Unlock(); return nil }

// built records the entries a test's Build was given.
type built struct {
	mu      sync.Mutex
	entries []config.Provider
}

func (b *built) build(c config.Provider) runtime.Provider {
	b.mu.Lock()
	b.entries = append(b.entries, c)
	b.mu.Unlock()
	return &idle{name: c.Name, prefix: c.Prefix}
}

// fixture is a config file, a running runtime and the methods over them.
type fixture struct {
	path  string
	rt    *runtime.Runtime
	p     *Providers
	built *built
	log   *bytes.Buffer
	exe   string // an executable file
}

func newFixture(t *testing.T, file string, env map[string]string) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{path: filepath.Join(dir, "config.json"), built: &built{}, log: &bytes.Buffer{}}
	f.exe = filepath.Join(dir, "server")
	if goruntime.GOOS == "windows" {
		f.exe += ".exe"
	}
	os.WriteFile(f.exe, []byte("#!/bin/sh\n"), 0o755)
	if file != "" {
		os.WriteFile(f.path, []byte(strings.ReplaceAll(file, "EXE", f.exe)), 0o600)
	}
	cfg, _, _ := config.Load(func(k string) string {
		if k == config.EnvConfig {
			return f.path
		}
		return env[k]
	})
	var opts []runtime.Option
	for _, c := range cfg.Providers {
		opts = append(opts, runtime.WithProvider(f.built.build(c)))
	}
	f.rt = runtime.New(opts...)
	if err := f.rt.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.rt.Close() })
	f.p = New(f.rt, f.path, f.built.build, WithGetenv(func(k string) string { return env[k] }),
		WithLogger(zerolog.New(f.log).Level(zerolog.InfoLevel)))
	return f
}

func (f *fixture) call(method string, params any) (any, error) {
	b, _ := json.Marshal(params)
	return f.p.Methods()[method](context.Background(), nil, b, nil)
}

const twoProviders = `{"providers":[{"name":"munim","command":"EXE","prefix":"computer","env":{"TOKEN":"s3cret-value"}},` +
	`{"name":"files","command":"EXE","prefix":"files"}],"policy":{"default":[]},"future":{"kept":true}}`

// Bad input is INVALID_ARGUMENTS naming the field, and the file is not
// touched.
func TestSetRefusesBadInputNamingTheField(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.txt")
	os.WriteFile(plain, []byte("x"), 0o644)
	tests := []struct {
		name   string
		params map[string]any
		env    map[string]string
		field  string
		says   string
	}{
		{"no name", map[string]any{"command": "EXE"}, nil, "name", "is missing"},
		{"a name with a space", map[string]any{"name": "my server", "command": "EXE"}, nil, "name", `"my server" must be 1 to 64 letters`},
		{"an unknown field", map[string]any{"name": "x", "command": "EXE", "cwd": "/"}, nil, "cwd", "unknown field; the fields are name, command, args, env, prefix, timeout, startTimeout"},
		{"no command", map[string]any{"name": "x"}, nil, "command", "is missing"},
		{"a relative command", map[string]any{"name": "x", "command": "npx"}, nil, "command", `"npx" is not a full path`},
		{"a command that is not there", map[string]any{"name": "x", "command": filepath.Join(dir, "nope")}, nil, "command", "there is no file at"},
		{"a folder", map[string]any{"name": "x", "command": dir}, nil, "command", "is a folder"},
		{"args that are not strings", map[string]any{"name": "x", "command": "EXE", "args": []any{1}}, nil, "args", "must be a list of strings"},
		{"too many args", map[string]any{"name": "x", "command": "EXE", "args": make([]string, 65)}, nil, "args", "has 65 entries; at most 64"},
		{"an env name with '='", map[string]any{"name": "x", "command": "EXE", "env": map[string]string{"A=B": "c"}}, nil, "env", `variable name "A=B"`},
		{"an env value with NUL", map[string]any{"name": "x", "command": "EXE", "env": map[string]string{"KEY": "a\x00b"}}, nil, "env", "the value of KEY"},
		{"null for a value never stored", map[string]any{"name": "files", "command": "EXE", "env": map[string]any{"TOKEN": nil}}, nil, "env", "TOKEN is null"},
		{"a prefix with a dot", map[string]any{"name": "x", "command": "EXE", "prefix": "a.b"}, nil, "prefix", `"a.b" must be 1 to 64`},
		{"the reserved prefix", map[string]any{"name": "x", "command": "EXE", "prefix": "capabilities"}, nil, "prefix", "must be 1 to 64"},
		{"another provider's prefix", map[string]any{"name": "x", "command": "EXE", "prefix": "computer"}, nil, "prefix", `"computer" is the prefix of provider "munim"`},
		{"a timeout too short", map[string]any{"name": "x", "command": "EXE", "timeout": 0.5}, nil, "timeout", "500ms is out of range: 1s to 1h0m0s"},
		{"a timeout too long", map[string]any{"name": "x", "command": "EXE", "timeout": "2h"}, nil, "timeout", "out of range"},
		{"a startTimeout that is not one", map[string]any{"name": "x", "command": "EXE", "startTimeout": "soon"}, nil, "startTimeout", "must be a number of seconds"},
		{"a provider the environment sets", map[string]any{"name": "munim", "command": "EXE"}, map[string]string{config.EnvMunim: "/opt/munim"}, "name", "MUNIM_PATH"},
	}
	if goruntime.GOOS != "windows" {
		tests = append(tests, struct {
			name   string
			params map[string]any
			env    map[string]string
			field  string
			says   string
		}{"a file that is not executable", map[string]any{"name": "x", "command": plain}, nil, "command", "is not executable: make it executable: chmod +x"})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, twoProviders, tc.env)
			before, _ := os.ReadFile(f.path)
			if tc.params["command"] == "EXE" {
				tc.params["command"] = f.exe
			}
			_, err := f.call("providers.set", tc.params)
			var we *wire.Error
			if !errors.As(err, &we) || we.Code != wire.CodeInvalidArguments || !strings.Contains(we.Message, tc.says) {
				t.Fatalf("err %v; want INVALID_ARGUMENTS saying %q", err, tc.says)
			}
			if d := cmp.Diff(map[string]string{"field": tc.field}, we.Details); d != "" {
				t.Errorf("details (-want +got):\n%s", d)
			}
			if after, _ := os.ReadFile(f.path); !bytes.Equal(before, after) {
				t.Errorf("the config file changed:\n%s", after)
			}
			if len(f.built.entries) != 2 {
				t.Errorf("a provider was built: %+v", f.built.entries)
			}
		})
	}
}

// providers.set adds a provider to the file (every other setting kept) and
// to the running runtime; an edit keeps stored secrets given as null; no
// env value is sent back or logged.
func TestSetWritesAppliesAndKeepsSecretsOut(t *testing.T) {
	f := newFixture(t, twoProviders, nil)
	got, err := f.call("providers.set", map[string]any{"name": "notes", "command": f.exe, "args": []string{"--stdio"},
		"env": map[string]string{"NOTES_KEY": "sk-notes-secret-1"}, "timeout": 30})
	if err != nil {
		t.Fatal(err)
	}
	want := Listed{Name: "notes", Prefix: "notes", Command: f.exe, Args: []string{"--stdio"}, EnvNames: []string{"NOTES_KEY"},
		Timeout: 30, StartTimeout: 30, State: runtime.StateStarting, Tools: []string{}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("reply (-want +got):\n%s", d)
	}
	if h := f.rt.Health(); len(h.Providers) != 3 || h.Providers[2].Name != "notes" {
		t.Errorf("runtime providers %+v", h.Providers)
	}
	// Edit munim: its TOKEN kept by null, a new variable added, its prefix changed.
	if _, err := f.call("providers.set", map[string]any{"name": "munim", "command": f.exe, "prefix": "desk",
		"env": map[string]any{"TOKEN": nil, "MODE": "fast"}}); err != nil {
		t.Fatal(err)
	}
	cfg, _, problem := config.Load(func(k string) string { return map[string]string{config.EnvConfig: f.path}[k] })
	if problem != nil {
		t.Fatal(problem)
	}
	if d := cmp.Diff(map[string]string{"TOKEN": "s3cret-value", "MODE": "fast"}, cfg.Providers[0].Env); d != "" || cfg.Providers[0].Prefix != "desk" {
		t.Errorf("munim after the edit: %+v (env -want +got):\n%s", cfg.Providers[0], d)
	}
	data, _ := os.ReadFile(f.path)
	if !strings.Contains(string(data), `"future": {`) || !strings.Contains(string(data), `"kept": true`) {
		t.Errorf("another section was lost:\n%s", data)
	}
	list, _ := f.call("providers.list", nil)
	b, _ := json.Marshal(list)
	for _, secret := range []string{"s3cret-value", "sk-notes-secret-1", "fast"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("providers.list shows an env value %q: %s", secret, b)
		}
		if strings.Contains(f.log.String(), secret) {
			t.Errorf("the log shows an env value %q: %s", secret, f.log.String())
		}
	}
	if !strings.Contains(f.log.String(), `"env":["MODE","TOKEN"]`) {
		t.Errorf("the log does not name the variables: %s", f.log.String())
	}
}

// providers.remove takes a provider out of the file and the runtime; an
// unknown name is PROVIDER_NOT_FOUND and changes nothing.
func TestRemove(t *testing.T) {
	f := newFixture(t, twoProviders, nil)
	got, err := f.call("providers.remove", map[string]any{"name": "files"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(removeReply{Name: "files", Removed: true}, got); d != "" {
		t.Errorf("reply (-want +got):\n%s", d)
	}
	if h := f.rt.Health(); len(h.Providers) != 1 || h.Providers[0].Name != "munim" {
		t.Errorf("runtime providers %+v", h.Providers)
	}
	before, _ := os.ReadFile(f.path)
	if strings.Contains(string(before), `"files"`) {
		t.Errorf("still in the file:\n%s", before)
	}
	_, err = f.call("providers.remove", map[string]any{"name": "files"})
	if wire.CodeOf(err) != wire.CodeProviderNotFound {
		t.Errorf("removing it again: %v, want PROVIDER_NOT_FOUND", err)
	}
	if after, _ := os.ReadFile(f.path); !bytes.Equal(before, after) {
		t.Errorf("the config file changed:\n%s", after)
	}
}

// A config file the host cannot read is never rewritten by providers.set.
func TestSetLeavesABrokenFileAlone(t *testing.T) {
	f := newFixture(t, `{"providers":[{"name":"a","command":"EXE","timeout":"soon"}]}`, nil)
	before, _ := os.ReadFile(f.path)
	_, err := f.call("providers.set", map[string]any{"name": "b", "command": f.exe})
	if wire.CodeOf(err) != wire.CodeExecutionError || !strings.Contains(err.Error(), "fix it there first") {
		t.Errorf("err %v", err)
	}
	if after, _ := os.ReadFile(f.path); !bytes.Equal(before, after) {
		t.Errorf("the config file changed:\n%s", after)
	}
}

// providers.check says what is wrong with a path that is not a program,
// at once and without running anything.
func TestCheckRefusesWhatIsNotAProgram(t *testing.T) {
	f := newFixture(t, "", nil)
	dir := t.TempDir()
	for _, tc := range []struct{ path, status, says string }{
		{filepath.Join(dir, "munim"), "not-found", "there is no file at"},
		{dir, "not-a-program", "is a folder"},
	} {
		got, err := f.call("providers.check", map[string]any{"command": tc.path})
		if err != nil {
			t.Fatal(err)
		}
		r := got.(checkReply)
		if r.Status != tc.status || !strings.Contains(r.Message, tc.says) || r.Fix == "" {
			t.Errorf("%s: %+v", tc.path, r)
		}
	}
	if len(f.built.entries) != 0 {
		t.Errorf("something was started: %+v", f.built.entries)
	}
}

// "assertFormats" is a config-file setting the setup page does not show:
// editing the server there keeps it, in the file and in the runtime.
func TestSetKeepsAssertFormatsAcrossAnEdit(t *testing.T) {
	f := newFixture(t, `{"providers":[{"name":"munim","command":"EXE","prefix":"computer","assertFormats":true}]}`, nil)
	if _, err := f.call("providers.set", map[string]any{"name": "munim", "command": f.exe, "args": []string{"--fast"}}); err != nil {
		t.Fatal(err)
	}
	cfg, _, problem := config.Load(func(k string) string { return map[string]string{config.EnvConfig: f.path}[k] })
	if problem != nil {
		t.Fatal(problem)
	}
	if !cfg.Providers[0].AssertFormats {
		t.Errorf("the edit dropped assertFormats: %+v", cfg.Providers[0])
	}
	if last := f.built.entries[len(f.built.entries)-1]; !last.AssertFormats {
		t.Errorf("the runtime's provider was built without assertFormats: %+v", last)
	}
}

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gnosis/gnosis/runtime"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestLoad(t *testing.T) {
	sec := func(n int) Duration { return Duration(time.Duration(n) * time.Second) }
	tests := []struct {
		name    string
		file    string // "" means no file
		env     map[string]string
		want    Config
		problem string // substring of the problem, "" for none
	}{
		{
			name:    "no file and no environment is degraded",
			problem: "no provider configured",
		},
		{
			name: "MUNIM_PATH alone gives the default provider",
			env:  map[string]string{EnvMunim: `C:\Program Files\Munim\munim.exe`},
			want: Config{Providers: []Provider{{Name: "munim", Command: `C:\Program Files\Munim\munim.exe`, Prefix: "computer", Timeout: sec(120)}}},
		},
		{
			name: "CAPABILITY_PREFIX renames the default provider's prefix",
			env:  map[string]string{EnvMunim: "/bin/munim", EnvPrefix: "pc"},
			want: Config{Providers: []Provider{{Name: "munim", Command: "/bin/munim", Prefix: "pc", Timeout: sec(120)}}},
		},
		{
			name: "file with two providers, policy, extensions and other sections",
			file: `{"providers":[
				{"name":"munim","command":"munim.exe","args":["--stdio"],"env":{"A":"1"},"prefix":"computer","timeout":"30s"},
				{"name":"files","command":"npx","args":["fs-server"],"timeout":5}],
				"policy":{"default":["computer.screenshot"],"askTimeout":"5s","origins":{"https://chat.example.com":["computer.*"],
					"HTTPS://Other.Example:443/":{"allow":["computer.screenshot"],"ask":["computer.click"],"deny":["computer.type"]},
					"https://*.example.org":["files.*"]}},
				"extensions":["aaaabbbbccccddddeeeeffffgggghhhh"],
				"log":{"level":"debug","file":"/tmp/g.log","maxBytes":1000},
				"workspace":{"dir":"/w"},"relay":{"allow":["http://127.0.0.1:11434/v1"],"idleTimeout":30},"future":{"ignored":true}}`,
			want: Config{
				Providers: []Provider{
					{Name: "munim", Command: "munim.exe", Args: []string{"--stdio"}, Env: map[string]string{"A": "1"}, Prefix: "computer", Timeout: sec(30)},
					{Name: "files", Command: "npx", Args: []string{"fs-server"}, Prefix: "files", Timeout: sec(5)},
				},
				Policy: Policy{Default: runtime.Rule{Allow: []string{"computer.screenshot"}}, AskTimeout: sec(5), Origins: map[string]runtime.Rule{
					"https://chat.example.com": {Allow: []string{"computer.*"}},
					"https://other.example":    {Allow: []string{"computer.screenshot"}, Ask: []string{"computer.click"}, Deny: []string{"computer.type"}},
					"https://*.example.org":    {Allow: []string{"files.*"}},
				}},
				Extensions: []string{"aaaabbbbccccddddeeeeffffgggghhhh"},
				Log:        Log{Level: "debug", File: "/tmp/g.log", MaxBytes: 1000},
				Workspace:  Workspace{Dir: "/w"},
				Relay:      Relay{Allow: []string{"http://127.0.0.1:11434/v1"}, IdleTimeout: sec(30)},
			},
		},
		{
			name: "a malformed relay section leaves the relay unconfigured and the rest standing",
			file: `{"providers":[{"command":"/bin/munim","prefix":"computer"}],"workspace":{"dir":"/w"},"relay":{"allow":"http://x"}}`,
			want: Config{Providers: []Provider{{Name: "computer", Command: "/bin/munim", Prefix: "computer", Timeout: sec(120)}},
				Workspace: Workspace{Dir: "/w"}},
			problem: `config: relay: line 1, column 112: "allow" must be a list [...], not string`,
		},
		{
			name:    "a malformed workspace section leaves the workspace unconfigured",
			file:    `{"providers":[{"command":"/bin/munim","prefix":"computer"}],"workspace":{"dir":7}}`,
			want:    Config{Providers: []Provider{{Name: "computer", Command: "/bin/munim", Prefix: "computer", Timeout: sec(120)}}},
			problem: `config: workspace:`,
		},
		{
			name: "environment overrides the file's munim",
			file: `{"providers":[{"name":"munim","command":"old","args":["a"],"prefix":"computer"}],"log":{"level":"info"}}`,
			env:  map[string]string{EnvMunim: "new", EnvPrefix: "desk", EnvLogLevel: "warn"},
			want: Config{Providers: []Provider{{Name: "munim", Command: "new", Prefix: "desk", Timeout: sec(120)}}, Log: Log{Level: "warn"}},
		},
		{
			name: "a policy key that is not an origin is dropped and reported",
			file: `{"providers":[{"name":"munim","command":"m"}],"policy":{"origins":{"chat.example.com":["*"],"https://ok.example/":["computer.click"],"https://a.example/path":["*"]}}}`,
			want: Config{
				Providers: []Provider{{Name: "munim", Command: "m", Prefix: "computer", Timeout: sec(120)}},
				Policy:    Policy{Origins: map[string]runtime.Rule{"https://ok.example": {Allow: []string{"computer.click"}}}},
			},
			problem: `policy.origins: not a web origin: "chat.example.com" has no scheme://`,
		},
		{
			name:    "a rule that is neither a list nor allow/ask/deny is invalid",
			file:    `{"providers":[{"name":"munim","command":"m"}],"policy":{"default":{"permit":["*"]}}}`,
			want:    Config{},
			problem: "a rule is a list of capability patterns",
		},
		{
			name:    "invalid JSON is degraded, environment still applies",
			file:    `{"providers":[`,
			env:     map[string]string{EnvMunim: "munim"},
			want:    Config{Providers: []Provider{{Name: "munim", Command: "munim", Prefix: "computer", Timeout: sec(120)}}},
			problem: "unexpected end of JSON input",
		},
		{
			name:    "bad duration is degraded",
			file:    `{"providers":[{"name":"a","command":"x","timeout":"soon"}]}`,
			problem: `invalid duration "soon"`,
		},
		{
			name: "bad providers are dropped, good ones kept",
			file: `{"providers":[{"name":"nocmd"},{"name":"dots","command":"x","prefix":"a.b"},
				{"name":"meta","command":"x","prefix":"capabilities"},
				{"name":"ok","command":"x"},{"name":"dup","command":"y","prefix":"ok"}]}`,
			want:    Config{Providers: []Provider{{Name: "ok", Command: "x", Prefix: "ok", Timeout: sec(120)}}},
			problem: `provider "nocmd": no command`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			if tt.file != "" {
				if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{EnvConfig: path}
			for k, v := range tt.env {
				env[k] = v
			}
			got, gotPath, problem := Load(func(k string) string { return env[k] })
			if gotPath != path {
				t.Errorf("path = %q, want %q", gotPath, path)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			switch {
			case tt.problem == "" && problem != nil:
				t.Errorf("unexpected problem: %v", problem)
			case tt.problem != "" && (problem == nil || !strings.Contains(problem.Error(), tt.problem)):
				t.Errorf("problem = %v, want it to mention %q", problem, tt.problem)
			}
		})
	}
}

func TestPathDefaultsToUserConfigDir(t *testing.T) {
	dir, err := os.UserConfigDir()
	if err != nil {
		t.Skip("no user config dir here")
	}
	got, err := Path(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "gnosis", "config.json"); got != want {
		t.Errorf("Path = %q, want %q", got, want)
	}
}

func TestUnreadableConfigIsAProblem(t *testing.T) {
	dir := t.TempDir() // a directory cannot be read as a file
	_, _, problem := Load(func(k string) string {
		if k == EnvConfig {
			return dir
		}
		return ""
	})
	if problem == nil || !strings.Contains(problem.Error(), "reading config") {
		t.Errorf("problem = %v, want a read error", problem)
	}
}

// Two spellings of one origin in the policy: whichever order the keys are
// read in, the origin runs nothing, and the problem names both keys.
func TestClashingOriginKeysFailClosed(t *testing.T) {
	tests := []struct {
		name    string
		origins string
		origin  string // a page of the clashing origin (or under the clashing glob)
		clash   Clash
	}{
		{
			name:    "deny under one spelling, allow under another",
			origins: `{"https://x.example.net":{"deny":["*"]},"HTTPS://X.EXAMPLE.NET":["computer.*"]}`,
			origin:  "https://x.example.net",
			clash:   Clash{Origin: "https://x.example.net", Keys: []string{"HTTPS://X.EXAMPLE.NET", "https://x.example.net"}},
		},
		{
			name:    "both allow, one more than the other",
			origins: `{"https://x.example.net/":["computer.echo"],"https://x.example.net:443":["*"],"https://y.example":["*"]}`,
			origin:  "https://x.example.net",
			clash:   Clash{Origin: "https://x.example.net", Keys: []string{"https://x.example.net/", "https://x.example.net:443"}},
		},
		{
			name:    "two spellings of one glob deny what any other glob grants",
			origins: `{"https://*.Example.org":["computer.*"],"https://*.example.org":{"ask":["computer.click"]},"https://*.org":["*"]}`,
			origin:  "https://chat.example.org",
			clash:   Clash{Origin: "https://*.example.org", Keys: []string{"https://*.Example.org", "https://*.example.org"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			file := `{"providers":[{"name":"munim","command":"m"}],"policy":{"default":["*"],"origins":` + tt.origins + `}}`
			if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, _, problem := Load(func(k string) string { return map[string]string{EnvConfig: path}[k] })
			if d := cmp.Diff([]Clash{tt.clash}, cfg.Policy.Clashes); d != "" {
				t.Errorf("clashes (-want +got):\n%s", d)
			}
			for _, c := range []string{"computer.echo", "computer.click", "files.read"} {
				if got := cfg.Policy.Runtime().Decide(tt.origin, c); got != runtime.Deny {
					t.Errorf("%s from %s: %s, want deny", c, tt.origin, got)
				}
			}
			var ce *ClashError
			if !errors.As(problem, &ce) || !strings.Contains(problem.Error(), strconv.Quote(tt.clash.Keys[0])+" and "+strconv.Quote(tt.clash.Keys[1])) {
				t.Errorf("problem %v does not name the clashing keys %q", problem, tt.clash.Keys)
			}
		})
	}
}

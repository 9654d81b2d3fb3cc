// Package config loads the host's configuration: a JSON file (the primary
// source, since a browser starts the host with a minimal environment) with
// environment variables layered on top.
//
// A broken or missing configuration never stops the host. Load always returns
// a usable Config and, separately, the reason it is incomplete; the host then
// serves health (degraded, with that reason) and the meta-capabilities.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gnosis/gnosis/runtime"
)

// Environment variables read by Load.
const (
	EnvConfig   = "GNOSIS_CONFIG"     // path of the config file
	EnvMunim    = "MUNIM_PATH"        // command of the default provider
	EnvPrefix   = "CAPABILITY_PREFIX" // prefix of the default provider
	EnvLogLevel = "GNOSIS_LOG_LEVEL"  // log level (debug, info, warn, error)
)

// Defaults.
const (
	DefaultProvider = "munim"
	DefaultPrefix   = "computer"
)

// Config is the whole configuration file.
type Config struct {
	Providers []Provider `json:"providers"`
	Policy    Policy     `json:"policy"`
	// Extensions lists extra trusted extension ids (Chrome ids or Firefox
	// add-on ids) besides our own.
	Extensions []string `json:"extensions,omitempty"`
	Log        Log      `json:"log"`
	Limits     Limits   `json:"limits"`
	// Workspace configures the folder the agent exchanges files through.
	Workspace Workspace `json:"workspace"`
	// Relay configures the model relay.
	Relay Relay `json:"relay"`
}

// Workspace is the "workspace" section.
type Workspace struct {
	// Dir is the folder the agent may read uploads from and save downloads
	// into. Empty means no workspace: every workspace method but
	// workspace.info fails with NOT_CONFIGURED.
	Dir string `json:"dir"`
}

// Relay is the "relay" section: which model APIs the relay may reach, and
// how long it waits for them.
type Relay struct {
	// Allow lists base URLs ("http://127.0.0.1:11434/v1"); a request is
	// allowed when its scheme, host and port match one and its path lies at
	// or under the base's path. Empty: only URLs whose path ends with
	// /chat/completions or /models. Listing a base URL also lets the relay
	// connect to private-network addresses for its origin.
	Allow []string `json:"allow"`
	// ResponseHeaderTimeout bounds the wait for the upstream's status and
	// headers once the request is sent ("300s" or seconds; 0: the relay's
	// default).
	ResponseHeaderTimeout Duration `json:"responseHeaderTimeout,omitempty"`
	// IdleTimeout bounds the wait for each further piece of the body (0: the
	// relay's default).
	IdleTimeout Duration `json:"idleTimeout,omitempty"`
}

// Provider is one MCP stdio server whose tools become "<prefix>.<tool>".
type Provider struct {
	Name    string            `json:"name"`
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Prefix  string            `json:"prefix"`
	// Timeout bounds one call; "120s" or a number of seconds.
	Timeout Duration `json:"timeout"`
	// StartTimeout bounds start-up (spawn, initialize, the first tools/list);
	// 0 means the provider's default (30 s). A server slow to start (a
	// cold npx download) needs more; a test wants less.
	StartTimeout Duration `json:"startTimeout,omitempty"`
	// AssertFormats makes "format" an assertion in the server's schemas
	// whatever their dialect (2019-09 and 2020-12 make it an annotation by
	// default), for the formats the host checks exactly.
	AssertFormats bool `json:"assertFormats,omitempty"`
}

// Policy says which capabilities each web origin may execute, and which only
// after the user approves each call. A rule is a list of capability patterns
// ("computer.*", "computer.click") or {"allow", "ask", "deny"} lists (see
// runtime.Rule). With no policy nothing is allowed: the user grants it.
type Policy struct {
	// Default judges origins without an entry and calls with no origin.
	Default runtime.Rule `json:"default"`
	// Origins maps a web origin ("https://chat.example.com") or a glob over
	// origins ("https://*.example.com") to its rule. Load normalises the keys.
	Origins map[string]runtime.Rule `json:"origins,omitempty"`
	// AskTimeout bounds the wait for the user's answer to an "ask" call.
	AskTimeout Duration `json:"askTimeout,omitempty"`
	// Clashes lists the origins the file names under several keys
	// ("https://x.example" and "HTTPS://X.EXAMPLE"). Load denies each of
	// them everything: which key was meant cannot be told.
	Clashes []Clash `json:"-"`
}

// Runtime returns the policy as the runtime enforces it.
func (p Policy) Runtime() runtime.Policy {
	return runtime.Policy{Default: p.Default, Origins: p.Origins}
}

// Limits bounds what the host holds on the browser's behalf.
type Limits struct {
	// InflightBytes caps the bytes of requests in flight (their params as
	// received); 0 means DefaultInflightBytes. Past it a request is refused
	// and the host keeps serving the others.
	InflightBytes int64 `json:"inflightBytes,omitempty"`
}

// DefaultInflightBytes is Limits.InflightBytes when the config sets none.
const DefaultInflightBytes = 256 << 20

// Log configures the log file.
type Log struct {
	Level    string `json:"level,omitempty"`
	File     string `json:"file,omitempty"`
	MaxBytes int64  `json:"maxBytes,omitempty"`
}

// Duration is a time.Duration written as "120s" or a number of seconds.
type Duration time.Duration

// UnmarshalJSON accepts a Go duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("invalid duration %q", s)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("duration must be a string like \"120s\" or a number of seconds")
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// CallTimeout is the longest per-call limit of c's providers (each one's
// Timeout, runtime.DefaultCallTimeout where unset), runtime.DefaultCallTimeout
// when there is none:
// how long a client may have to wait for a call before the host itself
// answers TIMEOUT.
func (c Config) CallTimeout() time.Duration {
	longest := time.Duration(0)
	for _, p := range c.Providers {
		t := time.Duration(p.Timeout)
		if t <= 0 {
			t = runtime.DefaultCallTimeout
		}
		longest = max(longest, t)
	}
	if longest == 0 {
		return runtime.DefaultCallTimeout
	}
	return longest
}

// Path returns the config file's path: $GNOSIS_CONFIG, else
// <user config dir>/gnosis/config.json.
func Path(getenv func(string) string) (string, error) {
	if p := getenv(EnvConfig); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("locating config directory: %w", err)
	}
	return filepath.Join(dir, "gnosis", "config.json"), nil
}

// Load reads the config file and applies the environment. It always returns
// a usable Config; a non-nil problem says why it is incomplete (unreadable or
// invalid file, no provider, invalid provider entries) and is meant for
// health's degraded reason. A missing file is not a problem by itself.
func Load(getenv func(string) string) (cfg Config, path string, problem error) {
	var problems []error
	path, err := Path(getenv)
	if err != nil {
		problems = append(problems, err)
	} else if sections, err := readFile(path, &cfg); err != nil {
		problems = append(problems, err)
		cfg = Config{} // a half-decoded file is not trusted
	} else if sections != nil {
		problems = append(problems, sections)
	}
	applyEnv(&cfg, getenv)
	cfg.Providers, problems = validProviders(cfg.Providers, problems)
	cfg.Policy.Origins, cfg.Policy.Clashes, problems = normalOrigins(cfg.Policy.Origins, problems)
	if len(cfg.Providers) == 0 && len(problems) == 0 {
		problems = append(problems, fmt.Errorf("no provider configured: set %s or add providers to %s", EnvMunim, path))
	}
	return cfg, path, errors.Join(problems...)
}

// readFile decodes the file at path into cfg. err is a file that cannot be
// read or decoded; sections says what is wrong with the workspace or relay
// section, each then left unconfigured while the rest of the file stands.
func readFile(path string, cfg *Config) (sections, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // Notepad's byte order mark
	// The workspace and relay sections are decoded on their own: a mistake in
	// one leaves that part unconfigured (and says so), not the whole file.
	var file struct {
		Config
		Workspace json.RawMessage `json:"workspace"`
		Relay     json.RawMessage `json:"relay"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, located(b, err))
	}
	*cfg = file.Config
	return errors.Join(section(b, "workspace", file.Workspace, &cfg.Workspace), section(b, "relay", file.Relay, &cfg.Relay)), nil
}

// section decodes the section name from raw, its text in the file b
// (absent: left zero), saying where in the file it is wrong.
func section[T any](b []byte, name string, raw json.RawMessage, v *T) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	var zero T
	*v = zero
	if at := int64(bytes.Index(b, raw)); at >= 0 {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syntax):
			syntax.Offset += at
		case errors.As(err, &typ):
			typ.Offset += at
		}
		return fmt.Errorf("config: %s: %w", name, located(b, err))
	}
	return fmt.Errorf("config: %s: %w", name, err)
}

// located words a decoding error of b for a person editing the file: where
// ("line L, column C") and what is wrong, for a syntax error or a value of
// the wrong type; other errors are returned as they are.
func located(b []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		at := int(syntax.Offset) - 1 // the offset counts the offending byte
		if syntax.Offset >= int64(len(b)) && strings.HasPrefix(syntax.Error(), "unexpected end") {
			at = len(b)
		}
		return fmt.Errorf("%s: %w", where(b, at), err)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Errorf("%s: %q must be %s, not %s", where(b, int(typ.Offset)-1), typ.Field, jsonKind(typ.Type.Kind()), typ.Value)
	}
	return err
}

// where is "line L, column C" of byte at in b (columns count characters).
func where(b []byte, at int) string {
	at = max(0, min(at, len(b)))
	line := bytes.Count(b[:at], []byte("\n")) + 1
	column := utf8.RuneCount(b[bytes.LastIndexByte(b[:at], '\n')+1:at]) + 1
	return fmt.Sprintf("line %d, column %d", line, column)
}

// jsonKind names what JSON value a Go kind decodes from.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list [...]"
	case reflect.Map, reflect.Struct:
		return "an object {...}"
	default:
		return "a number"
	}
}

// applyEnv layers the environment over the file: MUNIM_PATH sets (or adds)
// the default provider's command, CAPABILITY_PREFIX its prefix.
func applyEnv(cfg *Config, getenv func(string) string) {
	if lvl := getenv(EnvLogLevel); lvl != "" {
		cfg.Log.Level = lvl
	}
	munim, prefix := getenv(EnvMunim), getenv(EnvPrefix)
	if munim == "" && prefix == "" {
		return
	}
	i := -1
	for j, p := range cfg.Providers {
		if p.Name == DefaultProvider {
			i = j
			break
		}
	}
	if i < 0 {
		if munim == "" {
			return // a prefix alone does not invent a provider
		}
		cfg.Providers = append(cfg.Providers, Provider{Name: DefaultProvider})
		i = len(cfg.Providers) - 1
	}
	p := &cfg.Providers[i]
	if munim != "" {
		p.Command, p.Args = munim, nil
	}
	if prefix != "" {
		p.Prefix = prefix
	}
}

var prefixRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ValidPrefix reports whether prefix may name a provider's capabilities:
// letters, digits, '_' or '-', and not the meta-capabilities' prefix.
func ValidPrefix(prefix string) bool {
	return prefixRE.MatchString(prefix) && prefix != runtime.MetaPrefix
}

// nameOf is the name of the i-th provider entry of the file: its own, else
// its prefix, else (a bare command) "provider<i+1>".
func nameOf(p Provider, i int) string {
	switch {
	case p.Name != "":
		return p.Name
	case p.Prefix == "" && p.Command != "":
		return fmt.Sprintf("provider%d", i+1)
	}
	return p.Prefix
}

// PrefixFor is the prefix of a provider entry that names none: "computer"
// for the default provider (Munim), else the provider's name.
func PrefixFor(name string) string {
	if name == DefaultProvider {
		return DefaultPrefix
	}
	return name
}

// validProviders fills defaults and drops entries that cannot work, saying why.
func validProviders(in []Provider, problems []error) ([]Provider, []error) {
	var out []Provider
	seen := map[string]bool{}
	for i, p := range in {
		p.Name = nameOf(p, i)
		if p.Prefix == "" {
			p.Prefix = PrefixFor(p.Name)
		}
		if p.Timeout <= 0 {
			p.Timeout = Duration(runtime.DefaultCallTimeout)
		}
		switch {
		case strings.TrimSpace(p.Command) == "":
			problems = append(problems, fmt.Errorf("provider %q: no command", p.Name))
		case !prefixRE.MatchString(p.Prefix):
			problems = append(problems, fmt.Errorf("provider %q: prefix %q must be letters, digits, '_' or '-'", p.Name, p.Prefix))
		case p.Prefix == "capabilities":
			problems = append(problems, fmt.Errorf("provider %q: prefix %q is reserved for the meta-capabilities", p.Name, p.Prefix))
		case seen[p.Prefix]:
			problems = append(problems, fmt.Errorf("provider %q: prefix %q already used", p.Name, p.Prefix))
		default:
			seen[p.Prefix] = true
			out = append(out, p)
		}
	}
	return out, problems
}

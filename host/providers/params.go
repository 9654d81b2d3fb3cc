package providers

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/host/shellquote"
	"github.com/gnosis/gnosis/runtime/wire"
)

// Bounds of a provider entry (docs/host-methods.md).
const (
	MaxNameBytes    = 64
	MaxArgs         = 64
	MaxArgBytes     = 4096
	MaxEnv          = 64
	MaxEnvNameBytes = 128
	MaxEnvValue     = 32 << 10
	MinTimeout      = time.Second
	MaxTimeout      = time.Hour
	MaxStartTimeout = 10 * time.Minute
)

// Entry is the params of providers.set and providers.check.
type Entry struct {
	Name    string
	Command string
	Args    []string
	// Env maps a variable to its value; a nil value keeps the value the
	// provider has now (see keepEnv).
	Env          map[string]*string
	Prefix       string
	Timeout      time.Duration // 0: unset
	StartTimeout time.Duration // 0: unset
}

// fields are the params these methods take, in the order they are checked.
var fields = []string{"name", "command", "args", "env", "prefix", "timeout", "startTimeout"}

var (
	nameRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	envKeyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// invalid is INVALID_ARGUMENTS about one field: details.field names it.
func invalid(field, format string, args ...any) *wire.Error {
	return &wire.Error{Code: wire.CodeInvalidArguments, Message: field + ": " + fmt.Sprintf(format, args...),
		Details: map[string]string{"field": field}}
}

// decodeEntry reads and checks params field by field. needName says whether
// name is required (providers.set) or optional (providers.check).
func decodeEntry(params json.RawMessage, needName bool) (Entry, error) {
	raw, ok := decodeObject(params)
	if !ok {
		return Entry{}, wire.Errorf(wire.CodeInvalidRequest, "params must be an object with %s", strings.Join(fields, ", "))
	}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if !slices.Contains(fields, k) {
			return Entry{}, invalid(k, "unknown field; the fields are %s", strings.Join(fields, ", "))
		}
	}
	var e Entry
	var err error
	if e.Name, err = stringField(raw, "name", needName); err != nil {
		return e, err
	}
	if e.Name != "" || needName {
		if err := checkName(e.Name); err != nil {
			return e, err
		}
	}
	if e.Command, err = stringField(raw, "command", true); err != nil {
		return e, err
	}
	if err := checkCommandShape(e.Command); err != nil {
		return e, err
	}
	if e.Args, err = decodeArgs(raw["args"]); err != nil {
		return e, err
	}
	if e.Env, err = decodeEnv(raw["env"]); err != nil {
		return e, err
	}
	if e.Prefix, err = stringField(raw, "prefix", false); err != nil {
		return e, err
	}
	if e.Prefix != "" && !config.ValidPrefix(e.Prefix) || len(e.Prefix) > MaxNameBytes {
		return e, invalid("prefix", "%s must be 1 to %d letters, digits, '_' or '-', and not %q", strconv.QuoteToASCII(e.Prefix), MaxNameBytes, "capabilities")
	}
	if e.Timeout, err = durationField(raw, "timeout", MaxTimeout); err != nil {
		return e, err
	}
	if e.StartTimeout, err = durationField(raw, "startTimeout", MaxStartTimeout); err != nil {
		return e, err
	}
	return e, nil
}

func checkName(name string) error {
	if len(name) > MaxNameBytes || !nameRE.MatchString(name) {
		return invalid("name", "%s must be 1 to %d letters, digits, '_' or '-', starting with a letter or digit", strconv.QuoteToASCII(name), MaxNameBytes)
	}
	return nil
}

// checkCommandShape checks what can be told without looking at the disk.
func checkCommandShape(cmd string) error {
	switch {
	case cmd == "":
		return invalid("command", "is empty: give the full path of the server's program")
	case len(cmd) > MaxArgBytes || strings.ContainsRune(cmd, 0):
		return invalid("command", "is not a path")
	case !filepath.IsAbs(cmd):
		return invalid("command", "%s is not a full path: give it from the root (%s)", strconv.QuoteToASCII(cmd), absExample())
	}
	return nil
}

// absExample is a full path as this OS writes one.
func absExample() string {
	if runtime.GOOS == "windows" {
		return `C:\Program Files\Munim\munim.exe`
	}
	return "/usr/local/bin/server"
}

// What program finds wrong with a path, as providers.check reports it.
const (
	notFound    = "not-found"
	notAProgram = "not-a-program"
)

// program says what is wrong with path as a program to run (kind "" when
// nothing is), and how to fix it.
func program(path string) (kind, problem, fix string) {
	fi, err := os.Stat(path)
	switch {
	case os.IsNotExist(err):
		return notFound, fmt.Sprintf("there is no file at %s", path), "check the path: it is the full path of the server's program, file name included"
	case err != nil:
		return notFound, fmt.Sprintf("%s cannot be read: %v", path, unwrapPath(err)), "check the permissions of the file and of its folders"
	case fi.IsDir():
		return notAProgram, fmt.Sprintf("%s is a folder", path), "give the server's program inside it, file name included"
	case !fi.Mode().IsRegular():
		return notAProgram, fmt.Sprintf("%s is not a regular file", path), "give the server's program itself"
	case runtime.GOOS == "windows" && !windowsProgram(path):
		return notAProgram, fmt.Sprintf("%s is not a program (.exe, .com, .bat or .cmd)", path), "give the server's .exe"
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return notAProgram, fmt.Sprintf("%s is not executable", path), "make it executable: chmod +x " + shellquote.Arg(runtime.GOOS, path)
	}
	return "", "", ""
}

func windowsProgram(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".exe", ".com", ".bat", ".cmd":
		return true
	}
	return false
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func stringField(raw map[string]json.RawMessage, name string, required bool) (string, error) {
	v, ok := raw[name]
	if !ok || string(v) == "null" {
		if required {
			return "", invalid(name, "is missing")
		}
		return "", nil
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", invalid(name, "must be a string")
	}
	return s, nil
}

func decodeArgs(v json.RawMessage) ([]string, error) {
	if len(v) == 0 || string(v) == "null" {
		return nil, nil
	}
	var args []string
	if json.Unmarshal(v, &args) != nil {
		return nil, invalid("args", "must be a list of strings")
	}
	if len(args) > MaxArgs {
		return nil, invalid("args", "has %d entries; at most %d", len(args), MaxArgs)
	}
	for i, a := range args {
		if len(a) > MaxArgBytes || strings.ContainsRune(a, 0) {
			return nil, invalid("args", "entry %d is longer than %d bytes or has a NUL character", i+1, MaxArgBytes)
		}
	}
	return args, nil
}

func decodeEnv(v json.RawMessage) (map[string]*string, error) {
	if len(v) == 0 || string(v) == "null" {
		return nil, nil
	}
	var env map[string]*string
	if json.Unmarshal(v, &env) != nil {
		return nil, invalid("env", `must be an object of variable names to strings (or null to keep the stored value)`)
	}
	if len(env) > MaxEnv {
		return nil, invalid("env", "has %d variables; at most %d", len(env), MaxEnv)
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if len(k) > MaxEnvNameBytes || !envKeyRE.MatchString(k) {
			return nil, invalid("env", "variable name %s must be letters, digits and '_', not starting with a digit", strconv.QuoteToASCII(k))
		}
		if v := env[k]; v != nil && (len(*v) > MaxEnvValue || strings.ContainsRune(*v, 0)) {
			// The value is a secret as often as not: the message names the variable only.
			return nil, invalid("env", "the value of %s is longer than %d bytes or has a NUL character", k, MaxEnvValue)
		}
	}
	return env, nil
}

// durationField reads a number of seconds or a duration string ("90s"),
// within MinTimeout..most; absent is 0.
func durationField(raw map[string]json.RawMessage, name string, most time.Duration) (time.Duration, error) {
	v, ok := raw[name]
	if !ok || string(v) == "null" {
		return 0, nil
	}
	var d config.Duration
	if err := json.Unmarshal(v, &d); err != nil {
		return 0, invalid(name, "must be a number of seconds or a duration such as \"90s\"")
	}
	if t := time.Duration(d); t < MinTimeout || t > most {
		return 0, invalid(name, "%s is out of range: %s to %s", t, MinTimeout, most)
	}
	return time.Duration(d), nil
}

// decodeObject decodes params, absent meaning {}, as an object of fields.
func decodeObject(params json.RawMessage) (map[string]json.RawMessage, bool) {
	if len(params) == 0 {
		return map[string]json.RawMessage{}, true
	}
	var raw map[string]json.RawMessage
	return raw, json.Unmarshal(params, &raw) == nil && raw != nil
}

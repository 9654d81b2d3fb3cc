package register

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gnosis/gnosis/host/config"
)

// Status is the outcome of one doctor check.
type Status string

// Statuses, from good to bad.
const (
	OK   Status = "ok"
	Skip Status = "-"
	Warn Status = "WARN"
	Fail Status = "FAIL"
)

// Check is one row of the doctor's table.
type Check struct {
	Browser string // browser id, or "-" for machine-wide checks
	Item    string
	Status  Status
	Detail  string
	// More is printed under the table, one indented line each: what a
	// failing provider last wrote on stderr.
	More []string
}

// DoctorOptions says what the doctor examines.
type DoctorOptions struct {
	Env      Env
	Registry Registry
	// Browsers is a --browsers value; "" examines every browser of the table,
	// skipping those neither installed nor registered.
	Browsers string
	// SelfTest launches each registered host once; Timeout bounds its reply
	// (2 s when zero).
	SelfTest bool
	Timeout  time.Duration
	// Self is this binary, started to check the providers when no browser
	// has a host registered ("" skips that check).
	Self     string
	LookPath func(string) (string, error)
}

// Doctor examines the registration of every selected browser, the
// configuration and (with SelfTest) the registered host itself.
func Doctor(o DoctorOptions) ([]Check, error) {
	e := o.Env
	list := o.Browsers
	if list == "" {
		list = "all"
	}
	browsers, err := e.Select(list, o.Registry, o.LookPath)
	if err != nil {
		return nil, err
	}
	d := &doctor{DoctorOptions: o, tested: map[string]bool{}}
	if d.Timeout == 0 {
		d.Timeout = 2 * time.Second
	}
	for _, b := range browsers {
		d.browser(b, o.Browsers != "")
	}
	if len(d.skipped) > 0 {
		d.add("-", "other browsers", Skip, "not installed, not registered: %s", strings.Join(d.skipped, ", "))
	}
	d.config()
	return d.checks, nil
}

// Failed reports whether any check failed.
func Failed(checks []Check) bool { return Count(checks, Fail) > 0 }

// Count is how many checks have status s.
func Count(checks []Check, s Status) int {
	n := 0
	for _, c := range checks {
		if c.Status == s {
			n++
		}
	}
	return n
}

// Summary is the doctor's last line: "All checks passed." only when no
// check failed or warned; otherwise how many did.
func Summary(checks []Check) string {
	fails, warns := Count(checks, Fail), Count(checks, Warn)
	switch {
	case fails > 0 && warns > 0:
		return fmt.Sprintf("%s and %s: each FAIL row says how to fix it.", plural(fails, "check failed", "checks failed"), plural(warns, "warning", "warnings"))
	case fails > 0:
		return fmt.Sprintf("%s: each FAIL row says how to fix it.", plural(fails, "check failed", "checks failed"))
	case warns > 0:
		return fmt.Sprintf("No check failed; %s (WARN rows above).", plural(warns, "warning", "warnings"))
	}
	return "All checks passed."
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// PrintTable writes the checks as an aligned table, then each check's More
// lines under its name.
func PrintTable(w io.Writer, checks []Check) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BROWSER\tCHECK\tRESULT\tDETAIL")
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Browser, c.Item, c.Status, c.Detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range checks {
		if len(c.More) == 0 {
			continue
		}
		if _, err := fmt.Fprintf(w, "\n%s: its last lines on stderr:\n", c.Item); err != nil {
			return err
		}
		for _, l := range c.More {
			if _, err := fmt.Fprintf(w, "    %s\n", l); err != nil {
				return err
			}
		}
	}
	return nil
}

type doctor struct {
	DoctorOptions
	checks  []Check
	later   []Check         // rows about the registry, printed after "registered"
	tested  map[string]bool // host binary and family already self-tested
	skipped []string        // browsers neither installed nor registered
	health  *Health         // the first self-test's health reply
}

func (d *doctor) add(browser, item string, s Status, format string, args ...any) {
	d.checks = append(d.checks, Check{Browser: browser, Item: item, Status: s, Detail: fmt.Sprintf(format, args...)})
}

// addLater queues a row to follow the next "registered" row.
func (d *doctor) addLater(browser, item string, s Status, format string, args ...any) {
	d.later = append(d.later, Check{Browser: browser, Item: item, Status: s, Detail: fmt.Sprintf(format, args...)})
}

func (d *doctor) flush() {
	d.checks = append(d.checks, d.later...)
	d.later = nil
}

// browser checks one browser. named means the user asked for it, so "not
// registered" fails even if the browser is not installed.
func (d *doctor) browser(b Browser, named bool) {
	e := d.Env
	found := e.Found(b, d.Registry, d.LookPath)
	for _, dir := range e.SandboxDirs(b) {
		if _, err := os.Stat(dir); err == nil {
			d.add(b.ID, "sandbox", Warn, "%s exists: a Flatpak/Snap %s cannot see host manifests in the usual folders; use the distribution's package instead", dir, b.Name)
		}
	}
	mpath, where, ok := d.registration(b)
	if !ok {
		if !found && !named {
			d.skipped = append(d.skipped, b.ID)
			d.flush()
			return
		}
		d.add(b.ID, "registered", Fail, "%s (%s); run: gnosis-host install --browsers %s", where, says(b.Family.NotFound), b.ID)
		d.flush()
		return
	}
	d.add(b.ID, "registered", OK, "%s", where)
	d.flush()
	m, ok := d.manifest(b, mpath)
	if !ok {
		return
	}
	bin, ok := d.hostBinary(b, mpath, m)
	if ok && d.SelfTest {
		d.selfTest(b, bin, mpath)
	}
}

// manifest checks the manifest at mpath that browser b reads; ok is false
// when it cannot be read or parsed.
func (d *doctor) manifest(b Browser, mpath string) (m Manifest, ok bool) {
	errNotFound, errForbidden := says(b.Family.NotFound), says(b.Family.Forbidden)
	data, err := os.ReadFile(mpath)
	if err != nil {
		d.add(b.ID, "manifest", Fail, "%s: %v (%s)", mpath, err, errNotFound)
		return m, false
	}
	m, err = ParseManifest(data)
	if err != nil {
		d.add(b.ID, "manifest", Fail, "%s: %v (%s); run: gnosis-host install --browsers %s", mpath, err, errNotFound, b.ID)
		return m, false
	}
	problems := m.Check(d.Env.GOOS, b.Family)
	for _, p := range problems {
		why := errNotFound
		fix := "gnosis-host install --browsers " + b.ID
		if p.Field == b.Family.Field {
			why = errForbidden
			fix += fmt.Sprintf(" --extension-id <id> (the id %s shows for your Gnosis extension)", b.Family.ExtensionsPage)
		}
		if strings.Contains(p.Msg, "the browser says") {
			d.add(b.ID, "manifest "+p.Field, Fail, "%s; run: %s", p.Msg, fix)
		} else {
			d.add(b.ID, "manifest "+p.Field, Fail, "%s (%s); run: %s", p.Msg, why, fix)
		}
	}
	if len(problems) == 0 {
		d.add(b.ID, "manifest", OK, "%s: name, type and %d %s well-formed", mpath, len(m.Entries(b.Family)), b.Family.Field)
	}
	return m, true
}

// hostBinary checks the program manifest m names (relative to the
// manifest's folder on Windows); ok is true when the browser can start it.
func (d *doctor) hostBinary(b Browser, mpath string, m Manifest) (bin string, ok bool) {
	goos := d.Env.GOOS
	errStart := says(b.Family.StartFailed)
	bin = m.Path
	if goos == "windows" && bin != "" && !isAbs(goos, bin) {
		bin = join(goos, dirOf(goos, mpath), bin)
	}
	if bin == "" || !isAbs(goos, bin) {
		return "", false
	}
	st, err := os.Stat(bin)
	switch {
	case err != nil:
		d.add(b.ID, "host binary", Fail, "%s: %v (%s); run: gnosis-host install", bin, errors.Unwrap(err), errStart)
		return "", false
	case st.IsDir():
		d.add(b.ID, "host binary", Fail, "%s is a folder (%s); run: gnosis-host install --browsers %s", bin, errStart, b.ID)
		return "", false
	case !executable(goos, bin, st):
		d.add(b.ID, "host binary", Fail, "%s is not executable (%s); run: chmod +x %q", bin, errStart, bin)
		return "", false
	}
	d.add(b.ID, "host binary", OK, "%s", bin)
	return bin, true
}

// selfTest starts bin as browser b would and asks for its health. A host is
// started once per family: Firefox launches it differently, and the host
// trusts each launch on its own terms.
func (d *doctor) selfTest(b Browser, bin, mpath string) {
	key := bin + "\x00" + b.Family.ID
	if d.tested[key] {
		d.add(b.ID, "self-test", OK, "same host as above")
		return
	}
	d.tested[key] = true
	h, err := SelfTest(bin, b.Family.LaunchArgs(d.Env.GOOS, mpath), d.Timeout, d.settleTime())
	switch {
	case err != nil:
		d.add(b.ID, "self-test", Fail, "%v; run: gnosis-host install --browsers %s", err, b.ID)
	case h.Status != "ok":
		d.add(b.ID, "self-test", OK, "the host answers; health %s, %d capabilities (the provider and config rows say why)", h.Status, h.Capabilities)
	default:
		d.add(b.ID, "self-test", OK, "health ok, %d capabilities", h.Capabilities)
	}
	if err == nil && d.health == nil {
		d.health = &h
	}
}

// registration finds the manifest browser b would read. It returns a
// description of where it looked or what it found.
func (d *doctor) registration(b Browser) (mpath, where string, ok bool) {
	e := d.Env
	if e.GOOS != "windows" {
		var tried []string
		for _, s := range []Scope{User, System} {
			p, err := e.ManifestPath(b, s)
			if err != nil {
				continue
			}
			if _, err := os.Stat(p); err == nil {
				return p, p, true
			}
			tried = append(tried, p)
		}
		return "", "no manifest at " + strings.Join(tried, " or "), false
	}
	if d.Registry == nil {
		return "", ErrNoRegistry.Error(), false
	}
	var tried []string
	for _, k := range winLookupOrder(b) {
		v, err := d.Registry.Get(k.root, k.key)
		if err != nil {
			tried = append(tried, string(k.root)+`\`+k.key)
			continue
		}
		full := string(k.root) + `\` + k.key
		where := full + " = " + v
		if b.WinKey == winEdge {
			d.edgeOrder(b, k, v)
		}
		want, _ := e.ManifestPath(b, User)
		errNotFound := says(b.Family.NotFound)
		if v == "" {
			d.addLater(b.ID, "registry value", Fail, "%s has an empty default value; it must be the manifest's path (%s); run: gnosis-host install --browsers %s", full, errNotFound, b.ID)
			return "", where, false
		}
		if _, err := os.Stat(v); err != nil {
			d.addLater(b.ID, "registry value", Fail, "%s names %s, which does not exist (%s); install wrote %s; run: gnosis-host install --browsers %s", full, v, errNotFound, want, b.ID)
			return "", where, false
		}
		if !strings.EqualFold(v, want) {
			d.addLater(b.ID, "registry value", Warn, "%s names %s, not the installed manifest %s", full, v, want)
		} else {
			d.addLater(b.ID, "registry value", OK, "matches the installed manifest")
		}
		return v, where, true
	}
	return "", "no key " + strings.Join(tried, ", "), false
}

// edgeOrder warns when Edge's first key hides a later one that names a
// different manifest: Edge reads only the first key it finds.
func (d *doctor) edgeOrder(b Browser, first regKey, value string) {
	full := string(first.root) + `\` + first.key
	after := false
	for _, k := range winLookupOrder(b) {
		if k == first {
			after = true
			continue
		}
		if !after {
			continue
		}
		if v, err := d.Registry.Get(k.root, k.key); err == nil && !strings.EqualFold(v, value) {
			d.addLater(b.ID, "edge key order", Warn, "Edge reads only the first key it finds, %s (= %s); %s\\%s (= %s) is ignored", full, value, k.root, k.key, v)
			return
		}
	}
	d.addLater(b.ID, "edge key order", OK, "Edge reads only the first key it finds; that is %s", full)
}

type regKey struct {
	root Root
	key  string
}

// winLookupOrder is the order in which browser b looks for our key on
// Windows: the current user first, then the machine; Edge also tries
// Chromium's and Chrome's keys, and the 32-bit view of the machine's.
func winLookupOrder(b Browser) []regKey {
	bases := []string{b.WinKey}
	if b.WinKeyAlso != "" {
		bases = append(bases, b.WinKeyAlso)
	}
	if b.WinKey == winEdge {
		bases = EdgeKeyOrder
	}
	suffix := `\NativeMessagingHosts\` + HostName
	var out []regKey
	for _, base := range bases {
		out = append(out, regKey{HKCU, base + suffix})
	}
	if b.WinKey == winEdge {
		for _, base := range bases {
			out = append(out, regKey{HKLM, strings.Replace(base, `Software\`, `Software\WOW6432Node\`, 1) + suffix})
		}
	}
	for _, base := range bases {
		out = append(out, regKey{HKLM, base + suffix})
	}
	return out
}

// config checks the configuration file the way the host will read it when a
// browser starts it (with the browser's environment, so without MUNIM_PATH),
// and each provider's command.
func (d *doctor) config() {
	name := d.Env.ConfigFile
	if _, err := os.Stat(name); errors.Is(err, os.ErrNotExist) {
		d.add("-", "config", Warn, "%s does not exist: the host runs with no providers (gnosis-host install --munim PATH)", name)
		return
	}
	cfg, problem := loadConfig(name)
	if problem != nil {
		why := strings.TrimPrefix(problem.Error(), "config "+name+": ")
		d.add("-", "config", Fail, "%s: %s; fix: edit %s (where it says), or start afresh: gnosis-host install --munim PATH", name, why, name)
	} else {
		d.add("-", "config", OK, "%s: %d provider(s)", name, len(cfg.Providers))
	}
	if d.SelfTest && d.health == nil && d.Self != "" && len(cfg.Providers) > 0 {
		// No registered host was started: start this one to see the providers run.
		if h, err := SelfTest(d.Self, Chromium.LaunchArgs(d.Env.GOOS, ""), d.Timeout, d.settleTime()); err == nil {
			d.health = &h
		}
	}
	for _, p := range cfg.Providers {
		d.provider(p, name)
	}
}

// loadConfig reads the configuration file name the way the host will when
// a browser starts it (with the browser's environment, so without
// MUNIM_PATH).
func loadConfig(name string) (config.Config, error) {
	cfg, _, problem := config.Load(func(k string) string {
		if k == config.EnvConfig {
			return name
		}
		return ""
	})
	return cfg, problem
}

// settleTime bounds the wait for the providers of the configuration to
// finish starting: the longest startTimeout, and a little more.
func (d *doctor) settleTime() time.Duration {
	cfg, _ := loadConfig(d.Env.ConfigFile)
	return StartWait(cfg)
}

// StartWait is how long to wait for every provider of cfg to finish
// starting: its longest startTimeout (30 s when unset), plus 5 s.
func StartWait(cfg config.Config) time.Duration {
	longest := defaultStartTimeout
	if len(cfg.Providers) > 0 {
		longest = 0
	}
	for _, p := range cfg.Providers {
		t := time.Duration(p.StartTimeout)
		if t <= 0 {
			t = defaultStartTimeout
		}
		longest = max(longest, t)
	}
	return longest + 5*time.Second
}

// defaultStartTimeout is a provider's start-up limit when the config sets
// none (mcpprovider.DefaultStartTimeout).
const defaultStartTimeout = 30 * time.Second

// provider checks one provider: its command exists and, when a host was
// started, the provider got ready there.
func (d *doctor) provider(p config.Provider, configFile string) {
	item := "provider " + p.Name
	fixCommand := fmt.Sprintf("fix its \"command\" in %s", configFile)
	if p.Name == config.DefaultProvider {
		fixCommand = "run: gnosis-host install --munim PATH"
	}
	path, err := findCommand(p.Command)
	if err != nil {
		d.add("-", item, Fail, "command %v; %s", err, fixCommand)
		return
	}
	var ph *ProviderHealth
	if d.health != nil {
		for i := range d.health.Providers {
			if d.health.Providers[i].Name == p.Name {
				ph = &d.health.Providers[i]
			}
		}
	}
	if ph == nil {
		d.add("-", item, OK, "%s", path)
		return
	}
	var more []string
	if ph.Stderr != "" {
		more = strings.Split(ph.Stderr, "\n")
	}
	run := strings.Join(append([]string{quoteArg(p.Command)}, quoteArgs(p.Args)...), " ")
	switch ph.State {
	case "ready":
		d.add("-", item, OK, "%s: ready, %d capabilities", path, ph.Capabilities)
		return
	case "starting":
		d.checks = append(d.checks, Check{"-", item, Fail, fmt.Sprintf(
			"%s: still starting after %s; fix: raise its \"startTimeout\" in %s, or run it by hand to see why it is slow: %s",
			path, d.settleTime(), configFile, run), more})
		return
	}
	var fix string
	switch {
	case strings.Contains(ph.Error, "(startTimeout)"):
		fix = fmt.Sprintf("fix: raise its \"startTimeout\" in %s if it is only slow; run it by hand to see what it waits for: %s", configFile, run)
	case strings.Contains(ph.Error, "non-JSON on stdout"):
		fix = fmt.Sprintf("fix: point it at an MCP stdio server (%s), or make the server log to stderr", fixCommand)
	default:
		fix = "fix: run it by hand to see it fail: " + run
	}
	d.checks = append(d.checks, Check{"-", item, Fail, fmt.Sprintf("%s: %s: %s; %s", path, ph.State, ph.Error, fix), more})
}

// quoteArg quotes a for a shell when it holds spaces or quotes.
func quoteArg(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\"'\\$`") {
		return a
	}
	return strconv.Quote(a)
}

func quoteArgs(as []string) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = quoteArg(a)
	}
	return out
}

func executable(goos, name string, st os.FileInfo) bool {
	if goos == "windows" {
		ext := strings.ToLower(name[strings.LastIndex(name, ".")+1:])
		return ext == "exe" || ext == "bat" || ext == "cmd"
	}
	return st.Mode().Perm()&0o111 != 0
}

func dirOf(goos, p string) string {
	sep := "/"
	if goos == "windows" {
		p = toSlash(goos, p)
	}
	i := strings.LastIndex(p, sep)
	if i < 0 {
		return p
	}
	return p[:i]
}

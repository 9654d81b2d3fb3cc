package register

import (
	"errors"
	"fmt"
	"io"
	"os"
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
}

// Browser error strings, quoted in the doctor's explanations.
const (
	errNotFound  = `the browser says "Specified native messaging host not found"`
	errForbidden = `the browser says "Access to the specified native messaging host is forbidden"`
	errStart     = `the browser says "Failed to start native messaging host"`
)

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
	d.config()
	return d.checks, nil
}

// Failed reports whether any check failed.
func Failed(checks []Check) bool {
	for _, c := range checks {
		if c.Status == Fail {
			return true
		}
	}
	return false
}

// PrintTable writes the checks as an aligned table.
func PrintTable(w io.Writer, checks []Check) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BROWSER\tCHECK\tRESULT\tDETAIL")
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Browser, c.Item, c.Status, c.Detail)
	}
	return tw.Flush()
}

type doctor struct {
	DoctorOptions
	checks []Check
	later  []Check         // rows about the registry, printed after "registered"
	tested map[string]bool // host binaries already self-tested
}

func (d *doctor) add(browser, item string, s Status, format string, args ...any) {
	d.checks = append(d.checks, Check{browser, item, s, fmt.Sprintf(format, args...)})
}

// addLater queues a row to follow the next "registered" row.
func (d *doctor) addLater(browser, item string, s Status, format string, args ...any) {
	d.later = append(d.later, Check{browser, item, s, fmt.Sprintf(format, args...)})
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
			d.add(b.ID, "registered", Skip, "not installed, not registered")
			d.flush()
			return
		}
		d.add(b.ID, "registered", Fail, "%s (%s); run: gnosis-host install --browsers %s", where, errNotFound, b.ID)
		d.flush()
		return
	}
	d.add(b.ID, "registered", OK, "%s", where)
	d.flush()
	data, err := os.ReadFile(mpath)
	if err != nil {
		d.add(b.ID, "manifest", Fail, "%s: %v (%s)", mpath, err, errNotFound)
		return
	}
	m, err := ParseManifest(data)
	if err != nil {
		d.add(b.ID, "manifest", Fail, "%s: %v (%s)", mpath, err, errNotFound)
		return
	}
	problems := m.Check(e.GOOS)
	for _, p := range problems {
		why := errNotFound
		if p.Field == "allowed_origins" {
			why = errForbidden
		}
		if strings.Contains(p.Msg, "the browser says") {
			d.add(b.ID, "manifest "+p.Field, Fail, "%s", p.Msg)
		} else {
			d.add(b.ID, "manifest "+p.Field, Fail, "%s (%s)", p.Msg, why)
		}
	}
	if len(problems) == 0 {
		d.add(b.ID, "manifest", OK, "%s: name, type and %d origin(s) well-formed", mpath, len(m.AllowedOrigins))
	}
	bin := m.Path
	if e.GOOS == "windows" && bin != "" && !isAbs(e.GOOS, bin) {
		bin = join(e.GOOS, dirOf(e.GOOS, mpath), bin)
	}
	if bin == "" || (!isAbs(e.GOOS, bin)) {
		return
	}
	st, err := os.Stat(bin)
	switch {
	case err != nil:
		d.add(b.ID, "host binary", Fail, "%s: %v (%s); run: gnosis-host install", bin, errors.Unwrap(err), errStart)
		return
	case st.IsDir():
		d.add(b.ID, "host binary", Fail, "%s is a folder (%s)", bin, errStart)
		return
	case !executable(e.GOOS, bin, st):
		d.add(b.ID, "host binary", Fail, "%s is not executable (%s); run: chmod +x %q", bin, errStart, bin)
		return
	}
	d.add(b.ID, "host binary", OK, "%s", bin)
	if !d.SelfTest {
		return
	}
	if d.tested[bin] {
		d.add(b.ID, "self-test", OK, "same host as above")
		return
	}
	d.tested[bin] = true
	h, err := SelfTest(e.GOOS, bin, d.Timeout)
	switch {
	case err != nil:
		d.add(b.ID, "self-test", Fail, "%v", err)
	case h.Status != "ok":
		d.add(b.ID, "self-test", Warn, "health %s, %d capabilities%s", h.Status, h.Capabilities, providerErrors(h))
	default:
		d.add(b.ID, "self-test", OK, "health ok, %d capabilities", h.Capabilities)
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
		want := join(e.GOOS, e.InstallDir(), ManifestFile)
		if v == "" {
			d.addLater(b.ID, "registry value", Fail, "%s has an empty default value; it must be the manifest's path (%s)", full, errNotFound)
			return "", where, false
		}
		if _, err := os.Stat(v); err != nil {
			d.addLater(b.ID, "registry value", Fail, "%s names %s, which does not exist (%s); install wrote %s", full, v, errNotFound, want)
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
	cfg, _, problem := config.Load(func(k string) string {
		if k == config.EnvConfig {
			return name
		}
		return ""
	})
	if problem != nil {
		d.add("-", "config", Fail, "%s: %v", name, problem)
	} else {
		d.add("-", "config", OK, "%s: %d provider(s)", name, len(cfg.Providers))
	}
	for _, p := range cfg.Providers {
		if path, err := findCommand(p.Command); err != nil {
			d.add("-", "provider "+p.Name, Fail, "command %v", err)
		} else {
			d.add("-", "provider "+p.Name, OK, "%s", path)
		}
	}
}

func providerErrors(h Health) string {
	var parts []string
	if h.Error != "" {
		parts = append(parts, h.Error)
	}
	for _, p := range h.Providers {
		if p.State != "ready" {
			s := p.Name + " " + p.State
			if p.Error != "" {
				s += ": " + p.Error
			}
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
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

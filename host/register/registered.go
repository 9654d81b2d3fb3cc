package register

import "os"

// Registered is the program one browser would start for the host.
type Registered struct {
	Browser  string // browser id
	Manifest string // the manifest the browser reads
	Binary   string // the program that manifest names
}

// RegisteredHosts lists, for every browser of this system whose
// registration leads to a readable manifest, the program the browser would
// start, so that a command run from a terminal can say when browsers run
// another binary than itself. It reads files (and, on Windows, registry
// values) only; doctor explains what is wrong with a registration.
func RegisteredHosts(e Env, reg Registry) []Registered {
	var out []Registered
	for _, b := range Browsers {
		if !b.Supported(e.GOOS) {
			continue
		}
		mpath := registeredManifest(e, reg, b)
		if mpath == "" {
			continue
		}
		data, err := os.ReadFile(mpath)
		if err != nil {
			continue
		}
		m, err := ParseManifest(data)
		if err != nil {
			continue
		}
		if bin := manifestBinary(e.GOOS, mpath, m.Path); bin != "" {
			out = append(out, Registered{Browser: b.ID, Manifest: mpath, Binary: bin})
		}
	}
	return out
}

// registeredManifest is the manifest browser b reads: the first that
// exists of its user and system places, or on Windows the file named by the
// first of its registry keys that has a value. "" when there is none.
func registeredManifest(e Env, reg Registry, b Browser) string {
	if e.GOOS != "windows" {
		for _, s := range []Scope{User, System} {
			if p, err := e.ManifestPath(b, s); err == nil {
				if _, err := os.Stat(p); err == nil {
					return p
				}
			}
		}
		return ""
	}
	if reg == nil {
		return ""
	}
	for _, k := range winLookupOrder(b) {
		if v, err := reg.Get(k.root, k.key); err == nil {
			return v
		}
	}
	return ""
}

// manifestBinary is the program a manifest at mpath names with path:
// relative paths are relative to the manifest's folder on Windows and
// invalid elsewhere (""), as browsers read them.
func manifestBinary(goos, mpath, path string) string {
	if goos == "windows" && path != "" && !isAbs(goos, path) {
		path = join(goos, dirOf(goos, mpath), path)
	}
	if path == "" || !isAbs(goos, path) {
		return ""
	}
	return path
}

// Others returns the registered binaries that are not the file self (a
// binary that is gone included), each with the browsers that start it.
func Others(hosts []Registered, self string) map[string][]string {
	out := map[string][]string{}
	for _, h := range hosts {
		if sameFile(h.Binary, self) {
			continue
		}
		out[h.Binary] = append(out[h.Binary], h.Browser)
	}
	return out
}

package register

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Origin is the origin Chrome passes to the host for the Gnosis extension.
const Origin = "chrome-extension://" + ExtensionID + "/"

// Description is the manifest's description field (the scripts write the same).
const Description = "Gnosis capability host"

// Manifest is a native-messaging host manifest. Chromium browsers read
// allowed_origins, Firefox allowed_extensions; a manifest has one of them.
type Manifest struct {
	Name              string   `json:"name"`
	Description       string   `json:"description"`
	Path              string   `json:"path"`
	Type              string   `json:"type"`
	AllowedOrigins    []string `json:"allowed_origins,omitempty"`
	AllowedExtensions []string `json:"allowed_extensions,omitempty"`
}

var (
	idPattern     = regexp.MustCompile(`^[a-p]{32}$`)
	originPattern = regexp.MustCompile(`^chrome-extension://[a-p]{32}/$`)
	namePattern   = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)*$`)
)

// ValidID reports whether id looks like a Chrome extension id: 32 letters a-p.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// NewManifest returns family f's manifest for a host binary at binPath that
// lets the Gnosis extension and each extra extension id of that family
// connect. Extra ids are Chrome ids (32 letters a-p) or Firefox add-on ids;
// each goes to its own family's manifest, and an id of neither kind is an
// error.
func NewManifest(f Family, binPath string, extraIDs ...string) (Manifest, error) {
	m := Manifest{Name: HostName, Description: Description, Path: binPath, Type: "stdio"}
	list := []string{f.Ours}
	for _, id := range extraIDs {
		if !ValidID(id) && !ValidAddonID(id) {
			return Manifest{}, fmt.Errorf("extension id %q: want 32 letters a-p (Chrome) or an add-on id such as %s (Firefox)", id, AddonID)
		}
		if e, ok := f.entry(id); ok && !contains(list, e) {
			list = append(list, e)
		}
	}
	m.setEntries(f, list)
	return m, nil
}

// Entries is the list of family f's field.
func (m Manifest) Entries(f Family) []string {
	if f.Field == Firefox.Field {
		return m.AllowedExtensions
	}
	return m.AllowedOrigins
}

func (m *Manifest) setEntries(f Family, list []string) {
	if f.Field == Firefox.Field {
		m.AllowedExtensions = list
		return
	}
	m.AllowedOrigins = list
}

// Encode returns the manifest as the indented JSON install writes.
func (m Manifest) Encode() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		panic(err) // a struct of strings always encodes
	}
	return buf.Bytes()
}

// ParseManifest decodes a manifest file's bytes.
func ParseManifest(data []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Manifest{}, fmt.Errorf("manifest is not valid JSON: %w", err)
	}
	return m, nil
}

// Problem is one thing wrong with a manifest, and the fault it makes.
type Problem struct {
	Field string
	Msg   string
	// Fault is what the browser then tells the extension; a Problem with
	// Harmless set makes none (the browser ignores the entry).
	Fault    Fault
	Harmless bool
}

func (p Problem) String() string { return p.Field + ": " + p.Msg }

// Check returns what is wrong with the manifest's own fields for a browser of
// family f on goos (whether path exists is the doctor's business, not this
// one's). A browser rejects a manifest with a malformed entry in its list
// (FaultBadManifest); a well-formed list without our extension is
// FaultNotAllowed.
func (m Manifest) Check(goos string, f Family) []Problem {
	var ps []Problem
	bad := func(field, format string, args ...any) {
		ps = append(ps, Problem{Field: field, Msg: fmt.Sprintf(format, args...), Fault: FaultBadManifest})
	}
	switch {
	case m.Name != HostName:
		bad("name", "%q, want %q (the browser looks the host up by this name)", m.Name, HostName)
	case !namePattern.MatchString(m.Name):
		bad("name", "%q is not a valid host name", m.Name)
	}
	if m.Type != "stdio" {
		bad("type", "%q, want \"stdio\"", m.Type)
	}
	switch {
	case m.Path == "":
		bad("path", "empty")
	case !isAbs(goos, m.Path) && goos != "windows":
		bad("path", "%q is relative; it must be absolute", m.Path)
	}
	list := m.Entries(f)
	if len(list) == 0 {
		msg, fault := "empty: no extension may connect", FaultNotAllowed
		for _, o := range Families {
			if o.Field != f.Field && len(m.Entries(o)) > 0 {
				msg, fault = fmt.Sprintf("missing: this is a manifest for %s browsers (%s), which %s ignores", o.ID, o.Field, f.ID), FaultBadManifest
			}
		}
		ps = append(ps, Problem{Field: f.Field, Msg: msg, Fault: fault})
	}
	for _, o := range list {
		if msg, harmless := f.entryProblem(o); msg != "" {
			ps = append(ps, Problem{Field: f.Field, Msg: msg, Fault: FaultBadManifest, Harmless: harmless})
		}
	}
	if len(list) > 0 && !contains(list, f.Ours) {
		ps = append(ps, Problem{Field: f.Field, Msg: "does not list the Gnosis extension " + f.Ours, Fault: FaultNotAllowed})
	}
	return ps
}

// originProblem explains why o is not a well-formed allowed origin, or
// returns "". A chrome-extension:// origin whose id is malformed is harmless:
// Chromium accepts it and it matches no extension. Any other malformed entry
// makes Chromium reject the whole manifest.
func originProblem(o string) (msg string, harmless bool) {
	if originPattern.MatchString(o) {
		return "", false
	}
	const scheme = "chrome-extension://"
	if len(o) > len(scheme) && o[:len(scheme)] == scheme {
		id := o[len(scheme):]
		if originPattern.MatchString(o + "/") {
			return fmt.Sprintf("%q lacks the trailing slash", o), false
		}
		if strings.HasSuffix(id, "/") && strings.Count(id, "/") == 1 && !strings.Contains(id, "*") {
			return fmt.Sprintf("%q: extension id %q is not 32 letters a-p, so it lets no extension in", o, id[:len(id)-1]), true
		}
	}
	return fmt.Sprintf("%q: want chrome-extension://<32 letters a-p>/ (no wildcards)", o), false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

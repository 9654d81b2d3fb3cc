package register

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
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

// Problem is one thing wrong with a manifest, with what a browser would say.
type Problem struct {
	Field string
	Msg   string
}

func (p Problem) String() string { return p.Field + ": " + p.Msg }

// Check returns what is wrong with the manifest's own fields for a browser of
// family f on goos (whether path exists is the doctor's business, not this
// one's).
func (m Manifest) Check(goos string, f Family) []Problem {
	var ps []Problem
	switch {
	case m.Name != HostName:
		ps = append(ps, Problem{"name", fmt.Sprintf("%q, want %q (the browser looks the host up by this name)", m.Name, HostName)})
	case !namePattern.MatchString(m.Name):
		ps = append(ps, Problem{"name", fmt.Sprintf("%q is not a valid host name", m.Name)})
	}
	if m.Type != "stdio" {
		ps = append(ps, Problem{"type", fmt.Sprintf("%q, want \"stdio\"", m.Type)})
	}
	switch {
	case m.Path == "":
		ps = append(ps, Problem{"path", "empty"})
	case !isAbs(goos, m.Path) && goos != "windows":
		ps = append(ps, Problem{"path", fmt.Sprintf("%q is relative; it must be absolute", m.Path)})
	}
	list := m.Entries(f)
	if len(list) == 0 {
		msg := "empty: no extension may connect"
		for _, o := range Families {
			if o.Field != f.Field && len(m.Entries(o)) > 0 {
				msg = fmt.Sprintf("missing: this is a manifest for %s browsers (%s), which %s ignores", o.ID, o.Field, f.ID)
			}
		}
		ps = append(ps, Problem{f.Field, msg})
	}
	for _, o := range list {
		if msg := f.entryProblem(o); msg != "" {
			ps = append(ps, Problem{f.Field, msg})
		}
	}
	if len(list) > 0 && !contains(list, f.Ours) {
		ps = append(ps, Problem{f.Field, "does not list the Gnosis extension " + f.Ours +
			" (the browser says \"" + f.Forbidden + "\")"})
	}
	return ps
}

// originProblem explains why o is not a well-formed allowed origin, or
// returns "".
func originProblem(o string) string {
	if originPattern.MatchString(o) {
		return ""
	}
	const scheme = "chrome-extension://"
	if len(o) > len(scheme) && o[:len(scheme)] == scheme {
		id := o[len(scheme):]
		if originPattern.MatchString(o + "/") {
			return fmt.Sprintf("%q lacks the trailing slash", o)
		}
		if len(id) > 0 && id[len(id)-1] == '/' {
			id = id[:len(id)-1]
		}
		return fmt.Sprintf("%q: extension id %q is not 32 letters a-p", o, id)
	}
	return fmt.Sprintf("%q: want chrome-extension://<32 letters a-p>/ (no wildcards)", o)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

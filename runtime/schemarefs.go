package runtime

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// References inside one schema document, resolved before qri-io sees it.
//
// qri-io/jsonschema v0.2.1 resolves "$ref" against the base URIs that
// "$id"s set through a process-wide registry, and fetches (http, https,
// file) what it does not find there; it knows no draft-07 "$id": "#name"
// anchors. The host never fetches anything and keeps tools from shadowing
// each other in that registry, so localiseRefs rewrites the document first:
//
//   - each schema's base URI is worked out from the "$id"s around it (the
//     root's own, or a stand-in when it has none);
//   - each "$ref" that names a place in this document, through a base URI,
//     an "$anchor", a draft-07 "$id": "#name" or a JSON pointer, becomes a
//     plain pointer, "#/$defs/x";
//   - each "$ref" that names anything else (another document, a place that
//     does not exist) is removed, with a warning: that part of the schema
//     accepts anything, and the server still validates its own input;
//   - "$id", "$anchor" and "$recursiveRef" (qri-io resolves it only
//     against an "$id"'s URI) are removed;
//   - in a draft-07 (or older) document, the other members of an object
//     with a "$ref" are removed, as that draft ignores them.
//
// Members of "const", "enum", "default" and "examples" are values, not
// schemas: they are left as they are.

// rootBase stands for the URI of a document whose root has no "$id". It
// is never fetched (nothing is, and .invalid names no host): it only gives
// relative "$id"s and "$ref"s something to resolve against.
const rootBase = "https://schema.gnosis.invalid/root.json"

// legacyDraft matches the "$schema" of drafts 04, 06 and 07.
var legacyDraft = regexp.MustCompile(`^https?://json-schema\.org/draft-0[4-7]/schema#?$`)

// valueKeywords hold JSON values, not schemas.
var valueKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

// schemaMaps hold a map of name → schema: their members' names are not
// keywords.
var schemaMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
	"dependentSchemas": true, "dependencies": true}

// refIndex is where each URI of the document leads.
type refIndex struct {
	// legacy is set for a draft-07 (or older) document, where "$ref"
	// stands alone: the other members of its object are ignored.
	legacy bool
	// places maps an absolute URI without a fragment (a resource's base),
	// or with a "#name" anchor, to a JSON pointer into the document.
	places map[string]string
	// schemas holds the pointer of every schema (object or boolean).
	schemas map[string]bool
}

// localiseRefs rewrites doc as the comment above says and returns it.
func localiseRefs(doc any, warnings *[]string) any {
	ix := &refIndex{places: map[string]string{}, schemas: map[string]bool{}}
	base, _ := resolveURI(rootBase, "")
	ix.places[base] = ""
	if m, ok := doc.(map[string]any); ok {
		d, _ := m["$schema"].(string)
		ix.legacy = legacyDraft.MatchString(d)
		if id, ok := m["$id"].(string); ok {
			if u, ok := resolveURI(rootBase, id); ok && !strings.HasPrefix(id, "#") {
				base = u
			}
		}
	}
	ix.places[base] = ""
	ix.collect(doc, "", base)
	ix.rewrite(doc, "", base, warnings)
	return doc
}

// collect records the places of the schema v at ptr (base: the URI its
// parent resolves against) and of every schema under it.
func (ix *refIndex) collect(v any, ptr, base string) {
	switch t := v.(type) {
	case bool:
		ix.schemas[ptr] = true
	case map[string]any:
		ix.schemas[ptr] = true
		if _, ok := t["$ref"].(string); ok && ix.legacy {
			return // the rest of the object is ignored
		}
		base = ix.record(t, ptr, base)
		for k, child := range t {
			ix.collectMember(k, child, ptr, base)
		}
	case []any:
		for i, child := range t {
			ix.collect(child, fmt.Sprintf("%s/%d", ptr, i), base)
		}
	}
}

func (ix *refIndex) collectMember(k string, v any, ptr, base string) {
	switch {
	case valueKeywords[k]:
	case schemaMaps[k]:
		if m, ok := v.(map[string]any); ok {
			for name, sub := range m {
				ix.collect(sub, child(ptr, k, name), base)
			}
		}
	default:
		ix.collect(v, child(ptr, k), base)
	}
}

// record registers the schema object m at ptr under its "$id" and
// "$anchor" and returns its base URI.
func (ix *refIndex) record(m map[string]any, ptr, base string) string {
	if id, ok := m["$id"].(string); ok {
		if name, ok := strings.CutPrefix(id, "#"); ok {
			// Draft-07's plain-name fragment: an anchor.
			if name != "" {
				ix.places[base+"#"+name] = ptr
			}
		} else if u, ok := resolveURI(base, id); ok {
			u, frag, _ := strings.Cut(u, "#")
			base = u
			if _, taken := ix.places[base]; !taken || ptr == "" {
				ix.places[base] = ptr
			}
			if frag != "" && !strings.HasPrefix(frag, "/") {
				ix.places[base+"#"+frag] = ptr
			}
		}
	}
	if a, ok := m["$anchor"].(string); ok && a != "" {
		ix.places[base+"#"+a] = ptr
	}
	return base
}

// rewrite applies the rules of localiseRefs to v at ptr.
func (ix *refIndex) rewrite(v any, ptr, base string, warnings *[]string) {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t["$ref"].(string); ok && ix.legacy {
			for k := range t {
				if k != "$ref" {
					delete(t, k)
				}
			}
		}
		if id, ok := t["$id"].(string); ok && !strings.HasPrefix(id, "#") {
			if u, ok := resolveURI(base, id); ok {
				base, _, _ = strings.Cut(u, "#")
			}
		}
		if ref, ok := t["$ref"].(string); ok {
			target, inDoc := ix.resolve(base, ref)
			switch {
			case inDoc && ix.schemas[target]:
				t["$ref"] = "#" + (&url.URL{Fragment: target}).EscapedFragment()
			case inDoc:
				delete(t, "$ref")
				*warnings = append(*warnings, fmt.Sprintf("%s/$ref: reference %q leads to no schema in this document; that part is not validated", ptr, ref))
			default:
				delete(t, "$ref")
				*warnings = append(*warnings, fmt.Sprintf("%s/$ref: external reference %q is not followed; that part is not validated", ptr, ref))
			}
		}
		if ref, ok := t["$recursiveRef"].(string); ok {
			delete(t, "$recursiveRef")
			*warnings = append(*warnings, fmt.Sprintf("%s/$recursiveRef: recursive reference %q is not supported; that part is not validated", ptr, ref))
		}
		if _, ok := t["$id"].(string); ok {
			delete(t, "$id")
		}
		if _, ok := t["$anchor"].(string); ok {
			delete(t, "$anchor")
		}
		for k, v := range t {
			switch {
			case valueKeywords[k]:
			case schemaMaps[k]:
				if m, ok := v.(map[string]any); ok {
					for name, sub := range m {
						ix.rewrite(sub, child(ptr, k, name), base, warnings)
					}
				}
			default:
				ix.rewrite(v, child(ptr, k), base, warnings)
			}
		}
	case []any:
		for i, child := range t {
			ix.rewrite(child, fmt.Sprintf("%s/%d", ptr, i), base, warnings)
		}
	}
}

// resolve finds the JSON pointer ref leads to from base; false when ref
// names another document.
func (ix *refIndex) resolve(base, ref string) (string, bool) {
	u, ok := resolveURI(base, ref)
	if !ok {
		return "", false
	}
	doc, frag, _ := strings.Cut(u, "#")
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped
	}
	root, ok := ix.places[doc]
	if !ok {
		return "", false
	}
	if frag == "" || strings.HasPrefix(frag, "/") {
		return root + normalisePointer(frag), true
	}
	p, ok := ix.places[doc+"#"+frag]
	if !ok {
		return "\x00missing anchor", true
	}
	return p, true
}

// resolveURI resolves ref against base (RFC 3986 section 5), without
// touching anything either names.
func resolveURI(base, ref string) (string, bool) {
	b, err := url.Parse(base)
	if err != nil {
		return "", false
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	if b.Opaque != "" && !r.IsAbs() {
		// A URN base: only a fragment resolves against it.
		if r.Path != "" || r.Host != "" || r.RawQuery != "" {
			return "", false
		}
		u := *b
		u.Fragment, u.RawFragment = r.Fragment, ""
		return u.String(), true
	}
	return b.ResolveReference(r).String(), true
}

// normalisePointer re-escapes each token of a JSON pointer as child does.
func normalisePointer(p string) string {
	if p == "" {
		return ""
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return child("", toks...)
}

package schema

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// defaultBase is the base URI of a schema document without "$id". It
// names no place: the validator never fetches.
const defaultBase = "gnosis:///schema.json"

// document is one JSON document of schemas: the tool's, or one a Loader
// served (a test's copy of a remote, a metaschema).
type document struct {
	uri  string
	root any
}

// resource is a schema resource: a document's root or a subschema with
// "$id", with the anchors defined inside it.
type resource struct {
	uri             string
	doc             *document
	ptr             string
	draft           draft
	anchors         map[string]string // plain-name anchors -> JSON pointer in doc
	dynamicAnchors  map[string]string // "$dynamicAnchor" names -> pointer
	recursiveAnchor bool              // 2019-09 "$recursiveAnchor": true at its root
	vocab           *vocabularies
	rootNode        *node            // compiled once a dynamic reference needs it
	dynamicNodes    map[string]*node // dynamicAnchors compiled
}

// vocabularies says which vocabularies a resource's metaschema turns on;
// nil is all of them (and format as an annotation).
type vocabularies struct{ validation, applicator, formatAssertion bool }

// locInfo is what the scan learned of one subschema location.
type locInfo struct {
	res   *resource
	draft draft
}

func locKey(doc *document, ptr string) string { return doc.uri + "#" + ptr }

// scan walks doc's schemas, registering resources and anchors, and the
// draft and base of every subschema. It follows only the keywords that
// hold schemas, so an "$id" inside "const" or "enum" is not an identifier.
func (c *compiler) scan(doc *document, defaultDraft draft) error {
	res := &resource{uri: doc.uri, doc: doc, draft: defaultDraft}
	c.resources[doc.uri] = res
	return c.scanAt(doc, doc.root, "", res, defaultDraft, true)
}

func (c *compiler) scanAt(doc *document, v any, ptr string, res *resource, d draft, root bool) error {
	m, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); isBool {
			c.info[locKey(doc, ptr)] = locInfo{res, d}
		}
		return nil
	}
	_, hasRef := m["$ref"]
	id, hasID := m["$id"].(string)
	var vocab *vocabularies
	if s, ok := m["$schema"].(string); ok && (root || hasID) {
		nd, v, err := c.dialect(s, d)
		if err != nil {
			return err
		}
		d, vocab = nd, v
		if root {
			res.draft, res.vocab = d, vocab
		}
	} else if !root {
		vocab = res.vocab
	}
	if hasID && !(d == draft7 && hasRef) {
		u, err := resolveURI(res.uri, id)
		if err != nil {
			return fmt.Errorf("%s: $id %q: %w", ptrOrRoot(ptr), id, err)
		}
		base, frag, _ := strings.Cut(u, "#")
		if d != draft7 && frag != "" {
			return fmt.Errorf("%s: $id %q has a fragment: in %s an $id names a resource, and a plain name is an \"$anchor\" (write \"$anchor\": %q)", ptrOrRoot(ptr), id, d, frag)
		}
		switch {
		case d == draft7 && strings.HasPrefix(id, "#"):
			// A draft-07 "$id": "#name" is a plain-name anchor.
			res.addAnchor(frag, ptr)
		case root:
			res.uri = base // the document stays known by where it came from too
			c.resources[base] = res
		default:
			res = &resource{uri: base, doc: doc, ptr: ptr, draft: d, vocab: vocab}
			c.resources[base] = res
		}
		if d == draft7 && frag != "" && !strings.HasPrefix(id, "#") {
			res.addAnchor(frag, ptr)
		}
	}
	if d != draft7 {
		if a, ok := m["$anchor"].(string); ok {
			res.addAnchor(a, ptr)
		}
		if a, ok := m["$dynamicAnchor"].(string); ok && d == draft2020 {
			res.addAnchor(a, ptr)
			if res.dynamicAnchors == nil {
				res.dynamicAnchors = map[string]string{}
			}
			res.dynamicAnchors[a] = ptr
		}
		if b, ok := m["$recursiveAnchor"].(bool); ok && b && d == draft2019 && ptr == res.ptr {
			res.recursiveAnchor = true
		}
	}
	c.info[locKey(doc, ptr)] = locInfo{res, d}
	if d == draft7 && hasRef {
		return nil // draft-07: "$ref" stands alone
	}
	for k, sub := range m {
		var err error
		switch k {
		case "$defs", "definitions", "properties", "patternProperties", "dependentSchemas", "dependencies":
			if mm, ok := sub.(map[string]any); ok {
				for name, s := range mm {
					if err = c.scanAt(doc, s, ptr+"/"+escapeToken(k)+"/"+escapeToken(name), res, d, false); err != nil {
						return err
					}
				}
			}
		case "additionalProperties", "unevaluatedProperties", "items", "additionalItems", "unevaluatedItems",
			"contains", "propertyNames", "not", "if", "then", "else", "allOf", "anyOf", "oneOf", "prefixItems":
			if arr, ok := sub.([]any); ok {
				for i, s := range arr {
					if err = c.scanAt(doc, s, ptr+"/"+k+"/"+strconv.Itoa(i), res, d, false); err != nil {
						return err
					}
				}
			} else {
				err = c.scanAt(doc, sub, ptr+"/"+k, res, d, false)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *resource) addAnchor(name, ptr string) {
	if r.anchors == nil {
		r.anchors = map[string]string{}
	}
	r.anchors[name] = ptr
}

// dialect reads a "$schema" value: one of the drafts, or a metaschema the
// compiler can load whose "$vocabulary" and own "$schema" say how to read
// it. An unknown one reads as the enclosing draft.
func (c *compiler) dialect(s string, enclosing draft) (draft, *vocabularies, error) {
	switch strings.TrimSuffix(strings.Replace(s, "https://", "http://", 1), "#") {
	case "http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-06/schema", "http://json-schema.org/draft-04/schema":
		return draft7, nil, nil
	case "http://json-schema.org/draft/2019-09/schema":
		return draft2019, nil, nil
	case "http://json-schema.org/draft/2020-12/schema":
		return draft2020, nil, nil
	}
	doc, ok := c.load(strings.TrimSuffix(s, "#"), enclosing)
	if !ok {
		return enclosing, nil, nil
	}
	m, _ := doc.root.(map[string]any)
	d := enclosing
	if ms, ok := m["$schema"].(string); ok && ms != s {
		d, _, _ = c.dialect(ms, enclosing)
	}
	var vocab *vocabularies
	if vm, ok := m["$vocabulary"].(map[string]any); ok {
		vocab = &vocabularies{}
		for k := range vm {
			switch {
			case strings.HasSuffix(k, "/vocab/validation"):
				vocab.validation = true
			case strings.HasSuffix(k, "/vocab/applicator"):
				vocab.applicator = true
			case strings.HasSuffix(k, "/vocab/format-assertion"):
				vocab.formatAssertion = true
			}
		}
	}
	return d, vocab, nil
}

// resolveURI resolves ref against base.
func resolveURI(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	u := b.ResolveReference(r)
	if b.Opaque != "" && r.Scheme == "" && r.Opaque == "" && r.Path == "" && r.Host == "" {
		// A fragment-only reference against a URN.
		v := *b
		v.Fragment, v.RawFragment = r.Fragment, r.RawFragment
		u = &v
	}
	return u.String(), nil
}

// escapeToken escapes a JSON pointer token.
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapeToken(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

func ptrOrRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// lookup follows the JSON pointer ptr (unescaped tokens) inside v.
func lookup(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapeToken(tok)
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

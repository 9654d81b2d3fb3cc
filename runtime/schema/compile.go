package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gnosis/gnosis/runtime/schema/regex"
)

// ErrUnusable matches (errors.Is) every error of a schema that cannot be
// compiled; the error's text is the reason alone.
var ErrUnusable = errors.New("schema cannot be used")

// unusableError is a reason a schema cannot be used.
type unusableError struct{ reason error }

func (e *unusableError) Error() string        { return e.reason.Error() }
func (e *unusableError) Unwrap() error        { return e.reason }
func (e *unusableError) Is(target error) bool { return target == ErrUnusable }

func unusable(err error) error { return &unusableError{err} }

// compiler builds one schema's nodes.
type compiler struct {
	opts      *options
	docs      map[string]*document
	resources map[string]*resource
	info      map[string]locInfo
	nodes     map[string]*node
	patterns  map[string]*regex.Regexp // each source compiled once per schema
	warnings  []string
	asserted  map[string]bool // format names asserted, and left as annotations
	ignored   map[string]bool
}

// compile parses and compiles one schema document.
func compile(raw []byte, o *options) (*Schema, error) {
	if len(raw) > MaxSchemaBytes {
		return nil, unusable(fmt.Errorf("schema is %d bytes, more than the %d allowed", len(raw), MaxSchemaBytes))
	}
	root, err := Decode(raw)
	if err != nil {
		return nil, unusable(fmt.Errorf("schema is %w", err))
	}
	if err := checkBounds(root); err != nil {
		return nil, unusable(err)
	}
	c := &compiler{opts: o, docs: map[string]*document{}, resources: map[string]*resource{},
		info: map[string]locInfo{}, nodes: map[string]*node{}, patterns: map[string]*regex.Regexp{},
		asserted: map[string]bool{}, ignored: map[string]bool{}}
	doc := &document{uri: defaultBase, root: root}
	c.docs[doc.uri] = doc
	if err := c.scan(doc, o.draft); err != nil {
		return nil, unusable(err)
	}
	n, err := c.node(doc, "")
	if err != nil {
		return nil, unusable(err)
	}
	if err := c.dynamicNodes(); err != nil {
		return nil, unusable(err)
	}
	if cyc := findCycle(n); cyc != "" {
		return nil, unusable(errors.New(cyc))
	}
	if deep := inPlaceTooDeep(n); deep != "" {
		return nil, unusable(errors.New(deep))
	}
	sort.Strings(c.warnings)
	return &Schema{root: n, warnings: c.warnings, asserted: sortedKeys(c.asserted), ignored: sortedKeys(c.ignored)}, nil
}

// load returns the document at uri: one compiled already, one of the
// embedded metaschemas, or one the Loader serves. A document without
// "$schema" is read in the dialect d of the schema that refers to it.
func (c *compiler) load(uri string, d draft) (*document, bool) {
	if doc, ok := c.docs[uri]; ok {
		return doc, true
	}
	b, ok := metaschema(uri)
	if !ok && c.opts.loader != nil {
		b, ok = c.opts.loader(uri)
	}
	if !ok {
		return nil, false
	}
	v, err := Decode(b)
	if err != nil {
		return nil, false
	}
	doc := &document{uri: uri, root: v}
	c.docs[uri] = doc
	if err := c.scan(doc, d); err != nil {
		return nil, false
	}
	return doc, true
}

// node compiles the schema at ptr in doc, once.
func (c *compiler) node(doc *document, ptr string) (*node, error) {
	key := locKey(doc, ptr)
	if n, ok := c.nodes[key]; ok {
		return n, nil
	}
	v, ok := lookup(doc.root, ptr)
	if !ok {
		return nil, fmt.Errorf("nothing at %s", ptrOrRoot(ptr))
	}
	info, ok := c.info[key]
	if !ok {
		info = c.nearestInfo(doc, ptr)
	}
	n := &node{ptr: ptr, res: info.res, minLength: -1, maxLength: -1, maxItems: -1, minContains: 1, maxContains: -1, maxProperties: -1}
	if doc.uri != defaultBase {
		n.ptr = doc.uri + "#" + ptr
	}
	c.nodes[key] = n
	switch s := v.(type) {
	case bool:
		n.isBool, n.accept = true, s
		return n, nil
	case map[string]any:
		b := &builder{c: c, n: n, m: s, doc: doc, ptr: ptr, draft: info.draft, vocab: info.res.vocab}
		if err := b.build(); err != nil {
			return nil, err
		}
		return n, nil
	}
	return nil, fmt.Errorf("%s: a schema must be an object or a boolean, not %s", ptrOrRoot(ptr), typeName(v))
}

// nearestInfo is the scan's record of ptr's closest enclosing schema, for
// a "$ref" into a place the scan does not visit (an unknown keyword).
func (c *compiler) nearestInfo(doc *document, ptr string) locInfo {
	for p := ptr; ; {
		if info, ok := c.info[locKey(doc, p)]; ok {
			return info
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return c.info[locKey(doc, "")]
		}
		p = p[:i]
	}
}

// resolve finds the schema ref names from base. A reference into a
// document the compiler has (the schema itself, a metaschema, what the
// Loader serves) must land on a schema, or the schema cannot be used; one
// to any other document (the host never fetches) is nil, with a warning.
func (c *compiler) resolve(base, ref, at string, d draft) (*node, *resource, string, error) {
	u, err := resolveURI(base, ref)
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s: reference %q: %w", at, ref, err)
	}
	uri, frag, _ := strings.Cut(u, "#")
	frag = unescapeFragment(frag)
	res, ok := c.resources[uri]
	if !ok {
		if _, loaded := c.load(uri, d); loaded {
			res, ok = c.resources[uri]
		}
	}
	if !ok {
		c.warnings = append(c.warnings, fmt.Sprintf(": %s refers to %s, which the host does not fetch: that part accepts anything", at, uri))
		return nil, nil, "", nil
	}
	ptr := res.ptr
	anchor := ""
	switch {
	case frag == "":
	case frag[0] == '/':
		ptr += frag
	default:
		p, ok := res.anchors[frag]
		if !ok {
			return nil, nil, "", fmt.Errorf("%s: reference %q: %s defines no anchor %q", at, ref, resourceName(res), frag)
		}
		ptr, anchor = p, frag
	}
	if _, ok := lookup(res.doc.root, ptr); !ok {
		return nil, nil, "", fmt.Errorf("%s: reference %q: there is nothing at %s%s", at, ref, ptrOrRoot(ptr), inDocument(res))
	}
	n, err := c.node(res.doc, ptr)
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s: reference %q: %w", at, ref, err)
	}
	return n, res, anchor, nil
}

// resourceName names a resource in a message: "the schema" for the
// schema's own document, else its URI.
func resourceName(r *resource) string {
	if r.doc.uri == defaultBase && r.ptr == "" {
		return "the schema"
	}
	return r.uri
}

func inDocument(r *resource) string {
	if r.doc.uri == defaultBase {
		return ""
	}
	return " in " + r.doc.uri
}

// unescapeFragment decodes a URI fragment's percent escapes.
func unescapeFragment(f string) string {
	if !strings.Contains(f, "%") {
		return f
	}
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] == '%' && i+2 < len(f) {
			if v, err := strconv.ParseUint(f[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(f[i])
	}
	return b.String()
}

// builder fills one node from its schema object.
type builder struct {
	c     *compiler
	n     *node
	m     map[string]any
	doc   *document
	ptr   string
	draft draft
	vocab *vocabularies
}

// at is the schema location of keyword k, for messages.
func (b *builder) at(k string) string { return b.ptr + "/" + escapeToken(k) }

// sub compiles the subschema at a path below this schema.
func (b *builder) sub(path ...string) (*node, error) {
	p := b.ptr
	for _, s := range path {
		p += "/" + escapeToken(s)
	}
	return b.c.node(b.doc, p)
}

// subs compiles an array of subschemas; ok is false when k is absent.
func (b *builder) subs(k string) ([]*node, error) {
	arr, ok := b.m[k].([]any)
	if !ok {
		if _, present := b.m[k]; present {
			return nil, fmt.Errorf("%s: must be an array of schemas", b.at(k))
		}
		return nil, nil
	}
	out := make([]*node, len(arr))
	for i := range arr {
		n, err := b.sub(k, strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// one compiles the subschema of keyword k, nil when k is absent.
func (b *builder) one(k string) (*node, error) {
	if _, ok := b.m[k]; !ok {
		return nil, nil
	}
	return b.sub(k)
}

// count reads a non-negative integer keyword; absent is def.
func (b *builder) count(k string, def int) (int, error) {
	v, ok := b.m[k]
	if !ok {
		return def, nil
	}
	num, ok := v.(json.Number)
	d, okd := parseDecimal(string(num))
	if !ok || !okd || d.neg || !d.isInteger() {
		return 0, fmt.Errorf("%s: must be a non-negative integer", b.at(k))
	}
	bd := newBound(d)
	if !bd.isSmall || bd.small > 1<<40 {
		return 1 << 40, nil // beyond any value the host can hold
	}
	return int(bd.small), nil
}

// number reads a number keyword.
func (b *builder) number(k string) (*bound, error) {
	v, ok := b.m[k]
	if !ok {
		return nil, nil
	}
	num, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%s: must be a number", b.at(k))
	}
	d, _ := parseDecimal(string(num))
	bd := newBound(d)
	return &bd, nil
}

// build reads every keyword the node's draft knows.
func (b *builder) build() error {
	if b.draft == draft7 {
		if _, ok := b.m["$ref"]; ok {
			return b.refs() // draft-07: "$ref" stands alone
		}
	}
	steps := []func() error{b.refs, b.applicators}
	if b.vocab == nil || b.vocab.validation {
		steps = append(steps, b.anyType, b.numbers, b.strings)
	}
	steps = append(steps, b.formats, b.arrays, b.objects)
	for _, f := range steps {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// validationOn reports whether the validation vocabulary applies.
func (b *builder) validationOn() bool { return b.vocab == nil || b.vocab.validation }

package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/qri-io/jsonschema"
)

// NewQRIValidator returns the default Validator, built on
// github.com/qri-io/jsonschema v0.2.1 (draft 2019-09), read as draft 2020-12
// and draft-07 schemas need (keywords.go, schemarefs.go).
//
// qri-io v0.2.1 has four traits a host that runs untrusted tool schemas must
// contain, and this implementation does:
//
//   - It resolves a non-local "$ref" by fetching it (http, https, and file
//     URLs) through a process-wide registry, where an "$id" registers each
//     schema (so tools could shadow each other). Compile works on a copy of
//     the schema in which every reference is resolved inside the document
//     and rewritten to a plain pointer, and every other one removed, with
//     every "$id", "$anchor" and "$recursiveRef" (schemarefs.go). A removed
//     part of a schema accepts anything; the provider still validates its
//     own input. Warnings name what was removed.
//   - It ignores the pre-2019 "definitions" keyword, so "#/definitions/x"
//     refs fail to resolve. "definitions" is registered as an alias of
//     "$defs", which makes those refs resolve; the bytes describe returns are
//     never touched.
//   - A "$ref" cycle that does not descend into the instance ({"$ref":"#"},
//     or two $defs referring to each other through allOf) makes it recurse
//     until the stack overflows, which no recover catches: Compile rejects
//     such schemas (the capability is then unavailable).
//   - A compiled schema caches resolved refs inside itself and is not safe
//     for concurrent use, so each compiled schema has its own mutex.
//
// It also replaces the keywords qri-io gets wrong and reports what it leaves
// out (keywords.go), drops the patterns Go's regexp cannot compile (with a
// warning), and refuses schemas past the bounds of schemabounds.go before
// building anything.
func NewQRIValidator() Validator { return &qriValidator{} }

// qriValidator remembers what it compiled, by the schema's text: servers
// give many tools the same schema, and a tool's schema stays the same
// across re-discoveries.
type qriValidator struct {
	mu        sync.Mutex
	memo      map[string]compiled
	memoBytes int
}

type compiled struct {
	s   Schema
	err error
}

// maxMemo and maxMemoBytes bound the schemas a validator remembers (count
// and text); past them, it starts over. Schemas over maxMemoSchema bytes are
// not remembered.
const (
	maxMemo       = 512
	maxMemoBytes  = 8 << 20
	maxMemoSchema = 256 << 10
)

var (
	qriInit sync.Once
	// qriCompileMu serialises unmarshalling, which reads qri-io's global
	// keyword tables.
	qriCompileMu sync.Mutex
)

func initQRI() {
	qriInit.Do(func() {
		jsonschema.LoadDraft2019_09()
		jsonschema.RegisterKeyword("definitions", jsonschema.NewDefs)
		registerKeywords()
		jsonschema.SetKeywordOrder("$ref", 0)
		// Create the global registry now rather than lazily from racing
		// validations.
		jsonschema.GetSchemaRegistry()
	})
}

// Compile implements Validator.
func (v *qriValidator) Compile(schema json.RawMessage) (Schema, error) {
	v.mu.Lock()
	c, ok := v.memo[string(schema)]
	v.mu.Unlock()
	if ok {
		return c.s, c.err
	}
	c.s, c.err = compileQRI(schema)
	if len(schema) > maxMemoSchema {
		return c.s, c.err
	}
	v.mu.Lock()
	if v.memo == nil || len(v.memo) >= maxMemo || v.memoBytes+len(schema) > maxMemoBytes {
		v.memo, v.memoBytes = map[string]compiled{}, 0
	}
	v.memo[string(schema)] = c
	v.memoBytes += len(schema)
	v.mu.Unlock()
	return c.s, c.err
}

func compileQRI(schema json.RawMessage) (Schema, error) {
	initQRI()
	if len(schema) > MaxSchemaBytes {
		return nil, fmt.Errorf("schema is %d bytes, more than the %d allowed", len(schema), MaxSchemaBytes)
	}
	var doc any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	if err := checkSchemaBounds(doc); err != nil {
		return nil, err
	}
	var warnings []string
	doc = localiseRefs(doc, &warnings)
	dropUnsupportedPatterns(doc, "", &warnings)
	if c := refCycle(doc); c != "" {
		return nil, fmt.Errorf("schema cannot be evaluated: %s", c)
	}
	local, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("re-encoding schema: %w", err)
	}
	s := &jsonschema.Schema{}
	qriCompileMu.Lock()
	err = unmarshalSafely(s, local)
	qriCompileMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("compiling schema: %w", err)
	}
	return &qriSchema{s: s, warnings: warnings}, nil
}

func unmarshalSafely(s *jsonschema.Schema, data []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("schema compiler panicked: %v", p)
		}
	}()
	return s.UnmarshalJSON(data)
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

type qriSchema struct {
	mu       sync.Mutex
	s        *jsonschema.Schema
	warnings []string
}

// Warnings lists the parts of the schema that are not validated.
func (q *qriSchema) Warnings() []string { return q.warnings }

// Validate implements Schema.
func (q *qriSchema) Validate(arguments json.RawMessage) (vs []Violation, err error) {
	var doc any
	if err := json.Unmarshal(arguments, &doc); err != nil {
		return nil, fmt.Errorf("arguments are not JSON: %w", err)
	}
	return q.ValidateValue(doc)
}

// ValidateValue checks doc, a value as encoding/json decodes it into any.
func (q *qriSchema) ValidateValue(doc any) (vs []Violation, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	defer func() {
		if p := recover(); p != nil {
			vs, err = nil, fmt.Errorf("validator panicked: %v", p)
		}
	}()
	g := &refGuard{}
	state := q.s.Validate(context.WithValue(context.Background(), refGuardKey{}, g), doc)
	if g.tripped {
		return nil, fmt.Errorf("schema references nest deeper than %d", maxRefDepth)
	}
	for _, e := range *state.Errs {
		p := e.PropertyPath
		if p == "/" {
			p = ""
		}
		vs = append(vs, Violation{Path: p, Keyword: keywordOf(e), Message: e.Message})
	}
	// qri-io's order among keywords of equal rank depends on map
	// iteration: sort, so the same arguments always give the same list.
	sort.Slice(vs, func(i, j int) bool {
		a, b := vs[i], vs[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Keyword != b.Keyword {
			return a.Keyword < b.Keyword
		}
		return a.Message < b.Message
	})
	return vs, nil
}

// maxRefDepth bounds how many "$ref"s one validation may follow inside each
// other. Legitimate recursion follows the arguments' nesting, which JSON
// decoding already bounds; a cycle that does not (one refCycle missed)
// would otherwise recurse until the goroutine stack overflows and the host
// dies, which no recover can catch.
const maxRefDepth = 1000

type refGuardKey struct{}

// refGuard travels in the validation context: depth is the number of
// enclosing "$ref"s, tripped records that the bound was hit.
type refGuard struct {
	depth   int
	tripped bool
}

// guardedRef is qri-io's "$ref" keyword with a depth bound.
type guardedRef struct{ jsonschema.Ref }

func newGuardedRef() jsonschema.Keyword { return new(guardedRef) }

// ValidateKeyword implements jsonschema.Keyword.
func (r *guardedRef) ValidateKeyword(ctx context.Context, state *jsonschema.ValidationState, data any) {
	parent, _ := ctx.Value(refGuardKey{}).(*refGuard)
	if parent == nil {
		parent = &refGuard{}
	}
	if parent.tripped {
		return
	}
	if parent.depth >= maxRefDepth {
		parent.tripped = true
		state.AddError(data, "schema references nest too deep")
		return
	}
	// Validation of one compiled schema is serial (qriSchema.mu), so the
	// shared counter needs no lock.
	parent.depth++
	r.Ref.ValidateKeyword(ctx, state, data)
	parent.depth--
}

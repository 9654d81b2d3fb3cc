package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// Violation is one way a value breaks a schema, as sent in
// INVALID_ARGUMENTS details: {"errors": [{"path", "keyword", "message"}]}.
type Violation struct {
	// Path is a JSON pointer to the offending value ("" is the whole value).
	Path string `json:"path"`
	// Keyword is the schema keyword that failed ("type", "required",
	// "oneOf", "format", ...), so a client can act on it without parsing
	// Message.
	Keyword string `json:"keyword"`
	Message string `json:"message"`
}

// Schema is a compiled schema. It is immutable and safe for concurrent use.
type Schema struct {
	root     *node
	warnings []string
}

// Warnings lists the parts of the schema that are not checked (references
// to documents the host does not fetch), each a message that starts with
// ": " after the schema's name.
func (s *Schema) Warnings() []string { return s.warnings }

// Validate decodes data (any valid JSON number included, exactly) and
// checks it. It returns every violation, none when valid; an error means
// data is not JSON or the schema could not be evaluated on it.
func (s *Schema) Validate(data json.RawMessage) ([]Violation, error) {
	v, err := Decode(data)
	if err != nil {
		return nil, err
	}
	return s.ValidateValue(v)
}

// ValidateValue checks a value as Decode returns it.
func (s *Schema) ValidateValue(v any) ([]Violation, error) {
	st := state{collect: true}
	if s.root.isBool && s.root.accept {
		return nil, nil
	}
	st.validate(s.root, v, nil, nil)
	if st.fatal != nil {
		return nil, st.fatal
	}
	if len(st.errs) > 1 {
		sort.Slice(st.errs, func(i, j int) bool {
			a, b := st.errs[i], st.errs[j]
			if a.Path != b.Path {
				return a.Path < b.Path
			}
			if a.Keyword != b.Keyword {
				return a.Keyword < b.Keyword
			}
			return a.Message < b.Message
		})
	}
	return st.errs, nil
}

// Compiler compiles schemas and remembers them by their text: servers give
// many tools the same schema, and a tool's schema stays the same across
// re-discoveries. It is safe for concurrent use.
type Compiler struct {
	opts      options
	mu        sync.Mutex
	memo      map[string]compiled
	memoBytes int
}

type compiled struct {
	s   *Schema
	err error
}

// maxMemo and maxMemoBytes bound the schemas a Compiler remembers (count
// and text); past them, it starts over. Larger schemas than maxMemoSchema
// are not remembered.
const (
	maxMemo       = 512
	maxMemoBytes  = 8 << 20
	maxMemoSchema = 256 << 10
)

// NewCompiler returns a Compiler. It never touches the network or the
// disk, whatever a schema refers to.
func NewCompiler(opts ...Option) *Compiler {
	c := &Compiler{opts: options{draft: draft2020, matchTimeout: DefaultMatchTimeout}}
	for _, o := range opts {
		o(&c.opts)
	}
	return c
}

// Compile compiles schema. An error (wrapping ErrUnusable) says why the
// schema cannot be used.
func (c *Compiler) Compile(schema json.RawMessage) (*Schema, error) {
	c.mu.Lock()
	m, ok := c.memo[string(schema)]
	c.mu.Unlock()
	if ok {
		return m.s, m.err
	}
	m.s, m.err = c.compileSafely(schema)
	if len(schema) > maxMemoSchema {
		return m.s, m.err
	}
	c.mu.Lock()
	if c.memo == nil || len(c.memo) >= maxMemo || c.memoBytes+len(schema) > maxMemoBytes {
		c.memo, c.memoBytes = map[string]compiled{}, 0
	}
	c.memo[string(schema)] = m
	c.memoBytes += len(schema)
	c.mu.Unlock()
	return m.s, m.err
}

func (c *Compiler) compileSafely(schema []byte) (s *Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, unusable(fmt.Errorf("the compiler failed on it: %v", p))
		}
	}()
	return compile(schema, &c.opts)
}

package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// Violation is one way a value breaks a schema, as sent in
// INVALID_ARGUMENTS details: {"errors": [{"path", "keyword", "message",
// "keywordLocation"}]}, in the spirit of the specification's Basic output.
type Violation struct {
	// Path is a JSON pointer to the offending value ("" is the whole value):
	// the instance location.
	Path string `json:"path"`
	// Keyword is the schema keyword that failed ("type", "required",
	// "oneOf", "format", ...), so a client can act on it without parsing
	// Message.
	Keyword string `json:"keyword"`
	Message string `json:"message"`
	// KeywordLocation is the path of the keyword through the schema as it
	// was applied ("/properties/to/$ref/required"): "$ref"s and the branch
	// of an anyOf or oneOf appear in it, so a client can tell which
	// alternative an error belongs to.
	KeywordLocation string `json:"keywordLocation"`
}

// Schema is a compiled schema. It is immutable and safe for concurrent use.
type Schema struct {
	root     *node
	warnings []string
	asserted []string // format names asserted somewhere in the schema, sorted
	ignored  []string // format names left as annotations, sorted
}

// Warnings lists the parts of the schema that are not checked (references
// to documents the host does not fetch), each a message that starts with
// ": " after the schema's name.
func (s *Schema) Warnings() []string { return s.warnings }

// Formats lists the "format" values the schema uses: those it asserts (a
// value must have the format) and those that are annotations only (any
// string passes), each sorted. A format the validator does not check is
// always an annotation.
func (s *Schema) Formats() (asserted, annotations []string) { return s.asserted, s.ignored }

// Validate decodes data (any valid JSON number included, exactly) and
// checks it with the budget of its size (StepsFor). It returns every
// violation, none when valid; an error means data is not JSON, or the
// validation ran past its budget (ErrTooCostly).
func (s *Schema) Validate(data json.RawMessage) ([]Violation, error) {
	v, err := Decode(data)
	if err != nil {
		return nil, err
	}
	return s.ValidateValue(v, &Budget{Steps: StepsFor(len(data))})
}

// ValidateValue checks a value as Decode returns it, spending b. The
// error is a *CostError (ErrTooCostly) when b ran out, or ErrStopped when
// b.Done closed.
func (s *Schema) ValidateValue(v any, b *Budget) ([]Violation, error) {
	if s.root.isBool && s.root.accept {
		return nil, nil
	}
	st := state{collect: true, budget: b, steps: b.Steps}
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
			if a.KeywordLocation != b.KeywordLocation {
				return a.KeywordLocation < b.KeywordLocation
			}
			return a.Message < b.Message
		})
	}
	if st.more > 0 {
		st.errs = append(st.errs, Violation{Message: fmt.Sprintf(unlistedFormat, st.more, MaxViolations)})
	}
	return st.errs, nil
}

// unlistedFormat is the message of the violation that ends a list cut at
// MaxViolations.
const unlistedFormat = "%d more violations are not listed (only the first %d found are)"

// Unlisted is how many violations a list leaves out past MaxViolations
// (the number its last one gives), 0 when it is whole.
func Unlisted(vs []Violation) int {
	if len(vs) == 0 {
		return 0
	}
	last := vs[len(vs)-1]
	var n, max int
	if last.Path != "" || last.Keyword != "" || last.KeywordLocation != "" {
		return 0
	}
	if k, err := fmt.Sscanf(last.Message, unlistedFormat, &n, &max); err != nil || k != 2 || max != MaxViolations {
		return 0
	}
	return n
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
	c := &Compiler{opts: options{draft: draft2020}}
	for _, o := range opts {
		o(&c.opts)
	}
	return c
}

// Compile compiles schema. An error (wrapping ErrUnusable) says why the
// schema cannot be used. The compiled schema may share schema's memory
// (Decode): schema must not change afterwards.
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

package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	jptr "github.com/qri-io/jsonpointer"
	"github.com/qri-io/jsonschema"
)

// sibling returns the keyword name of the schema being validated (the
// schema that holds the calling keyword), unwrapped from its tagger; nil
// when there is none.
func sibling(state *jsonschema.ValidationState, name string) jsonschema.Keyword {
	if state.Local == nil {
		return nil
	}
	k, _ := state.Local.JSONProp(name).(jsonschema.Keyword)
	if t, ok := k.(*tagger); ok {
		return t.Keyword
	}
	return k
}

// patternProperties is "patternProperties", keeping its patterns so that
// "additionalProperties" can tell which properties they cover.
type patternProperties struct {
	keys    []string // the patterns as written, sorted
	res     []*regexp.Regexp
	schemas []*jsonschema.Schema
}

func newPatternProperties() jsonschema.Keyword { return new(patternProperties) }

// UnmarshalJSON takes an object of pattern → schema.
func (p *patternProperties) UnmarshalJSON(b []byte) error {
	var m map[string]*jsonschema.Schema
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	p.keys = slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range p.keys {
		re, err := regexp.Compile(k)
		if err != nil {
			return fmt.Errorf("invalid pattern %q: %w", k, err)
		}
		p.res = append(p.res, re)
		p.schemas = append(p.schemas, m[k])
	}
	return nil
}

// Register implements jsonschema.Keyword.
func (p *patternProperties) Register(uri string, reg *jsonschema.SchemaRegistry) {
	for _, s := range p.schemas {
		s.Register(uri, reg)
	}
}

// Resolve implements jsonschema.Keyword: "#/patternProperties/<pattern>/...".
func (p *patternProperties) Resolve(pointer jptr.Pointer, uri string) *jsonschema.Schema {
	if head := pointer.Head(); head != nil {
		if i, ok := slices.BinarySearch(p.keys, *head); ok {
			return p.schemas[i].Resolve(pointer.Tail(), uri)
		}
	}
	return nil
}

// JSONProp implements jsonschema.JSONPather.
func (p *patternProperties) JSONProp(name string) any {
	if i, ok := slices.BinarySearch(p.keys, name); ok {
		return p.schemas[i]
	}
	return nil
}

// covers reports whether a pattern matches the property name.
func (p *patternProperties) covers(name string) bool {
	for _, re := range p.res {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// ValidateKeyword implements jsonschema.Keyword: every property whose name
// a pattern matches is checked against that pattern's schema.
func (p *patternProperties) ValidateKeyword(ctx context.Context, state *jsonschema.ValidationState, data any) {
	obj, ok := data.(map[string]any)
	if !ok {
		return
	}
	for _, key := range sortedKeys(obj) {
		for i, re := range p.res {
			if !re.MatchString(key) {
				continue
			}
			state.SetEvaluatedKey(key)
			sub := state.NewSubState()
			sub.DescendBase("patternProperties", p.keys[i])
			sub.DescendRelative("patternProperties", p.keys[i])
			sub.DescendInstance(key)
			sub.Errs = &[]jsonschema.KeyError{}
			p.schemas[i].ValidateKeyword(ctx, sub, obj[key])
			state.AddSubErrors(*sub.Errs...)
			if sub.IsValid() {
				state.UpdateEvaluatedPropsAndItems(sub)
			}
		}
	}
}

// additionalProperties is "additionalProperties" as the specification has
// it: it applies to the properties that this schema's own "properties" and
// "patternProperties" do not name, and a violation points at the property
// it refuses. It replaces qri-io/jsonschema v0.2.1's (keywords_object.go),
// which also counted the properties named inside "allOf", "anyOf",
// "dependentSchemas" and the like as covered, and so let through what
// {"allOf":[{"properties":{"a":{}}}],"additionalProperties":false} refuses.
type additionalProperties struct {
	jsonschema.AdditionalProperties
	never bool // the schema is false
}

func newAdditionalProperties() jsonschema.Keyword { return new(additionalProperties) }

// UnmarshalJSON takes a schema.
func (a *additionalProperties) UnmarshalJSON(b []byte) error {
	var never bool
	a.never = json.Unmarshal(b, &never) == nil && !never
	return a.AdditionalProperties.UnmarshalJSON(b)
}

// ValidateKeyword implements jsonschema.Keyword.
func (a *additionalProperties) ValidateKeyword(ctx context.Context, state *jsonschema.ValidationState, data any) {
	obj, ok := data.(map[string]any)
	if !ok {
		return
	}
	props, _ := sibling(state, "properties").(*jsonschema.Properties)
	patterns, _ := sibling(state, "patternProperties").(*patternProperties)
	for _, key := range sortedKeys(obj) {
		if props != nil {
			if _, ok := (*props)[key]; ok {
				continue
			}
		}
		if patterns != nil && patterns.covers(key) {
			continue
		}
		sub := state.NewSubState()
		sub.DescendInstance(key)
		if a.never {
			sub.AddError(obj[key], fmt.Sprintf("property %s is not allowed (additionalProperties is false)", strconv.Quote(key)))
			continue
		}
		state.SetEvaluatedKey(key)
		sub.ClearState()
		sub.DescendBase("additionalProperties")
		sub.DescendRelative("additionalProperties")
		(*jsonschema.Schema)(&a.AdditionalProperties).ValidateKeyword(ctx, sub, obj[key])
		state.UpdateEvaluatedPropsAndItems(sub)
	}
}

// sortedKeys is obj's keys in order, so violations come in the same order
// every time.
func sortedKeys(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

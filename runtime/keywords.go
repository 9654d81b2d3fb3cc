package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	jptr "github.com/qri-io/jsonpointer"
	"github.com/qri-io/jsonschema"
)

// qri-io's errors carry a path and a message but not the keyword that
// failed. Every keyword that can fail is registered wrapped in a tagger,
// which marks the errors the keyword added (and no keyword inside it marked
// first) with its name, in the error's InvalidValue (never sent: Violation
// has no place for it).

// failingKeywords are the makers of the keywords that add errors: draft
// 2019-09's as qri-io/jsonschema v0.2.1 has them, and this package's own
// where v0.2.1 gets them wrong or leaves them out:
//
//   - "type" (keyword_type.go): integers of 2^63 and more, and booleans
//     written as strings;
//   - "multipleOf" (keyword_multipleof.go): decimal steps such as 0.01;
//   - "enum", "const" (keyword_enum.go): values decoded once, not at
//     every validation;
//   - "required" (keyword_required.go): a violation at each missing
//     property's own path;
//   - "additionalProperties", "patternProperties" (keyword_objects.go):
//     only this schema's own properties count as covered;
//   - "items", "prefixItems", "additionalItems" (keyword_arrays.go): draft
//     2020-12's tuples beside 2019-09's;
//   - "format" (formats.go): leap seconds and offsets in "date-time" and
//     "time", "email", "ipv4", "uri", and the "uuid" and "duration" formats;
//   - "$ref" (qri.go): a bound on nesting; "oneOf": which branches matched.
var failingKeywords = map[string]jsonschema.KeyMaker{
	"$ref": newGuardedRef, "$recursiveRef": jsonschema.NewRecursiveRef,
	"type": newType, "enum": newEnum, "const": newConst,
	"multipleOf": newMultipleOf, "maximum": jsonschema.NewMaximum, "exclusiveMaximum": jsonschema.NewExclusiveMaximum,
	"minimum": jsonschema.NewMinimum, "exclusiveMinimum": jsonschema.NewExclusiveMinimum,
	"maxLength": jsonschema.NewMaxLength, "minLength": jsonschema.NewMinLength, "pattern": jsonschema.NewPattern,
	"allOf": jsonschema.NewAllOf, "anyOf": jsonschema.NewAnyOf, "oneOf": newOneOf, "not": jsonschema.NewNot,
	"properties": jsonschema.NewProperties, "patternProperties": newPatternProperties,
	"additionalProperties": newAdditionalProperties, "required": newRequired,
	"propertyNames": jsonschema.NewPropertyNames, "maxProperties": jsonschema.NewMaxProperties,
	"minProperties": jsonschema.NewMinProperties, "dependentSchemas": jsonschema.NewDependentSchemas,
	"dependentRequired": jsonschema.NewDependentRequired, "unevaluatedProperties": jsonschema.NewUnevaluatedProperties,
	"items": newItems, "prefixItems": newPrefixItems, "additionalItems": newAdditionalItems,
	"maxItems": jsonschema.NewMaxItems, "minItems": jsonschema.NewMinItems, "uniqueItems": jsonschema.NewUniqueItems,
	"contains": jsonschema.NewContains, "maxContains": jsonschema.NewMaxContains, "minContains": jsonschema.NewMinContains,
	"unevaluatedItems": jsonschema.NewUnevaluatedItems,
	"if":               jsonschema.NewIf, "then": jsonschema.NewThen, "else": jsonschema.NewElse,
	"format": newFormat,
}

// registerKeywords registers every failing keyword wrapped in a tagger.
// Must run once, after the draft's keywords are loaded.
func registerKeywords() {
	for name, maker := range failingKeywords {
		jsonschema.RegisterKeyword(name, func() jsonschema.Keyword {
			return &tagger{Keyword: maker(), name: name}
		})
	}
}

// keywordTag marks a qri-io error with the keyword that added it.
type keywordTag struct{ keyword string }

// keywordOf returns the keyword that added e, "" if none did.
func keywordOf(e jsonschema.KeyError) string {
	if t, ok := e.InvalidValue.(keywordTag); ok {
		return t.keyword
	}
	return ""
}

// tagger is a keyword that marks the errors of the keyword it wraps.
type tagger struct {
	jsonschema.Keyword
	name string
}

// UnmarshalJSON decodes the wrapped keyword.
func (k *tagger) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, k.Keyword) }

// ValidateKeyword implements jsonschema.Keyword.
func (k *tagger) ValidateKeyword(ctx context.Context, state *jsonschema.ValidationState, data any) {
	n := len(*state.Errs)
	k.Keyword.ValidateKeyword(ctx, state, data)
	errs := *state.Errs
	for i := n; i < len(errs); i++ {
		if _, ok := errs[i].InvalidValue.(keywordTag); !ok {
			errs[i].InvalidValue = keywordTag{k.name}
		}
	}
}

// Resolve implements jsonschema.Keyword. It resolves into "if", "then" and
// "else" too, for which qri-io/jsonschema v0.2.1 resolves nothing, so that
// a "$ref" to a schema inside them ("#/if") works.
func (k *tagger) Resolve(pointer jptr.Pointer, uri string) *jsonschema.Schema {
	switch kw := k.Keyword.(type) {
	case *jsonschema.If:
		return (*jsonschema.Schema)(kw).Resolve(pointer, uri)
	case *jsonschema.Then:
		return (*jsonschema.Schema)(kw).Resolve(pointer, uri)
	case *jsonschema.Else:
		return (*jsonschema.Schema)(kw).Resolve(pointer, uri)
	}
	return k.Keyword.Resolve(pointer, uri)
}

// JSONProp implements jsonschema.JSONPather, so "$ref" pointers resolve
// through a wrapped keyword as through the keyword itself.
func (k *tagger) JSONProp(name string) any {
	if p, ok := k.Keyword.(jsonschema.JSONPather); ok {
		return p.JSONProp(name)
	}
	return nil
}

// JSONChildren implements jsonschema.JSONContainer.
func (k *tagger) JSONChildren() map[string]jsonschema.JSONPather {
	if c, ok := k.Keyword.(jsonschema.JSONContainer); ok {
		return c.JSONChildren()
	}
	return nil
}

// oneOf is qri-io's oneOf keyword with messages that say what went wrong:
// which branches a value matched when it matched more than one.
type oneOf struct {
	jsonschema.OneOf
	titles []string // each branch's "title", "" when it has none
}

func newOneOf() jsonschema.Keyword { return new(oneOf) }

// UnmarshalJSON decodes the branches and their titles.
func (o *oneOf) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &o.OneOf); err != nil {
		return err
	}
	var branches []struct {
		Title string `json:"title"`
	}
	_ = json.Unmarshal(b, &branches) // a boolean branch has no title
	o.titles = make([]string, len(o.OneOf))
	for i := range branches {
		if i < len(o.titles) {
			o.titles[i] = branches[i].Title
		}
	}
	return nil
}

// Resolve implements jsonschema.Keyword.
func (o *oneOf) Resolve(pointer jptr.Pointer, uri string) *jsonschema.Schema {
	return o.OneOf.Resolve(pointer, uri)
}

// ValidateKeyword implements jsonschema.Keyword: exactly one branch must
// match. Unlike qri-io's it tries every branch, so it can name them.
func (o *oneOf) ValidateKeyword(ctx context.Context, state *jsonschema.ValidationState, data any) {
	var matched []int
	evaluated := state.NewSubState()
	evaluated.ClearState()
	for i, sch := range o.OneOf {
		sub := state.NewSubState()
		sub.ClearState()
		sub.DescendBase("oneOf", strconv.Itoa(i))
		sub.DescendRelative("oneOf", strconv.Itoa(i))
		sub.Errs = &[]jsonschema.KeyError{}
		sch.ValidateKeyword(ctx, sub, data)
		if sub.IsValid() {
			matched = append(matched, i)
			evaluated.UpdateEvaluatedPropsAndItems(sub)
		}
	}
	switch len(matched) {
	case 1:
		state.UpdateEvaluatedPropsAndItems(evaluated)
	case 0:
		state.AddError(data, fmt.Sprintf("must match exactly one of the %d oneOf schemas, matched none", len(o.OneOf)))
	default:
		names := make([]string, len(matched))
		for j, i := range matched {
			names[j] = strconv.Itoa(i)
			if i < len(o.titles) && o.titles[i] != "" {
				names[j] += " (" + strconv.Quote(o.titles[i]) + ")"
			}
		}
		state.AddError(data, fmt.Sprintf("must match exactly one of the %d oneOf schemas, matched %d: branches %s",
			len(o.OneOf), len(matched), strings.Join(names, ", ")))
	}
}

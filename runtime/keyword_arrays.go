package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	jptr "github.com/qri-io/jsonpointer"
	"github.com/qri-io/jsonschema"
)

// The array keywords, as both dialects that MCP servers send have them:
//
//   - "prefixItems" (draft 2020-12): schemas for the first items, by position;
//   - "items" as one schema: every item after those "prefixItems" names (all
//     of them when there is no "prefixItems");
//   - "items" as an array (draft 2019-09 and earlier): schemas by position,
//     and "additionalItems" for the items after them.
//
// qri-io/jsonschema v0.2.1 (keywords_array.go) knows no "prefixItems", so
// a 2020-12 tuple was not checked and its "items" applied to every item;
// and its "additionalItems" counted items checked inside "allOf" and the
// like as covered.

// positional is a list of schemas applied by position: "prefixItems", or
// "items" in its array form.
type positional struct {
	keyword string
	schemas []*jsonschema.Schema
}

func (p *positional) UnmarshalJSON(b []byte) error {
	return json.Unmarshal(b, &p.schemas)
}

func (p *positional) Register(uri string, reg *jsonschema.SchemaRegistry) {
	for _, s := range p.schemas {
		s.Register(uri, reg)
	}
}

func (p *positional) Resolve(pointer jptr.Pointer, uri string) *jsonschema.Schema {
	if head := pointer.Head(); head != nil {
		if i, err := strconv.Atoi(*head); err == nil && i >= 0 && i < len(p.schemas) {
			return p.schemas[i].Resolve(pointer.Tail(), uri)
		}
	}
	return nil
}

func (p *positional) JSONProp(name string) any {
	if i, err := strconv.Atoi(name); err == nil && i >= 0 && i < len(p.schemas) {
		return p.schemas[i]
	}
	return nil
}

// validate checks arr's first items against the schemas.
func (p *positional) validate(ctx context.Context, state *jsonschema.ValidationState, arr []any) {
	for i, s := range p.schemas {
		if i >= len(arr) {
			return
		}
		validateItem(ctx, state, arr, i, s, p.keyword, strconv.Itoa(i))
	}
}

// validateItem checks arr[i] against s, the schema at keyword/tokens.
func validateItem(ctx context.Context, state *jsonschema.ValidationState, arr []any, i int, s *jsonschema.Schema, keyword string, tokens ...string) {
	sub := state.NewSubState()
	sub.ClearState()
	sub.DescendBase(append([]string{keyword}, tokens...)...)
	sub.DescendRelative(append([]string{keyword}, tokens...)...)
	sub.DescendInstance(strconv.Itoa(i))
	s.ValidateKeyword(ctx, sub, arr[i])
	sub.SetEvaluatedIndex(i)
	state.UpdateEvaluatedPropsAndItems(sub)
}

// prefixItems is "prefixItems".
type prefixItems struct{ positional }

func newPrefixItems() jsonschema.Keyword {
	return &prefixItems{positional{keyword: "prefixItems"}}
}

// ValidateKeyword implements jsonschema.Keyword.
func (p *prefixItems) ValidateKeyword(ctx context.Context, state *jsonschema.ValidationState, data any) {
	if arr, ok := data.([]any); ok {
		p.validate(ctx, state, arr)
	}
}

// items is "items", one schema or (draft 2019-09 and earlier) an array.
type items struct {
	positional
	rest  *jsonschema.Schema // the one schema; nil for the array form
	never bool               // rest is false
}

func newItems() jsonschema.Keyword { return &items{positional: positional{keyword: "items"}} }

// UnmarshalJSON takes a schema or an array of schemas.
func (it *items) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		return it.positional.UnmarshalJSON(t)
	}
	var never bool
	it.never = json.Unmarshal(b, &never) == nil && !never
	it.rest = new(jsonschema.Schema)
	return json.Unmarshal(b, it.rest)
}

// Register implements jsonschema.Keyword.
func (it *items) Register(uri string, reg *jsonschema.SchemaRegistry) {
	if it.rest != nil {
		it.rest.Register(uri, reg)
		return
	}
	it.positional.Register(uri, reg)
}

// Resolve implements jsonschema.Keyword: "#/items/..." for the one schema,
// "#/items/<n>/..." for the array form.
func (it *items) Resolve(pointer jptr.Pointer, uri string) *jsonschema.Schema {
	if it.rest != nil {
		return it.rest.Resolve(pointer, uri)
	}
	return it.positional.Resolve(pointer, uri)
}

// JSONProp implements jsonschema.JSONPather.
func (it *items) JSONProp(name string) any {
	if it.rest != nil {
		return it.rest.JSONProp(name)
	}
	return it.positional.JSONProp(name)
}

// ValidateKeyword implements jsonschema.Keyword.
func (it *items) ValidateKeyword(ctx context.Context, state *jsonschema.ValidationState, data any) {
	arr, ok := data.([]any)
	if !ok {
		return
	}
	if it.rest == nil {
		it.validate(ctx, state, arr)
		return
	}
	from := 0
	if p, ok := sibling(state, "prefixItems").(*prefixItems); ok {
		from = len(p.schemas)
	}
	for i := from; i < len(arr); i++ {
		if it.never {
			refuseItem(state, arr, i, from, "items")
			return
		}
		validateItem(ctx, state, arr, i, it.rest, "items")
	}
}

// additionalItems is "additionalItems": the schema of the items after those
// its sibling "items" lists in its array form; ignored otherwise.
type additionalItems struct {
	schema jsonschema.Schema
	never  bool
}

func newAdditionalItems() jsonschema.Keyword { return new(additionalItems) }

// UnmarshalJSON takes a schema.
func (a *additionalItems) UnmarshalJSON(b []byte) error {
	var never bool
	a.never = json.Unmarshal(b, &never) == nil && !never
	return json.Unmarshal(b, &a.schema)
}

// Register implements jsonschema.Keyword.
func (a *additionalItems) Register(uri string, reg *jsonschema.SchemaRegistry) {
	a.schema.Register(uri, reg)
}

// Resolve implements jsonschema.Keyword.
func (a *additionalItems) Resolve(pointer jptr.Pointer, uri string) *jsonschema.Schema {
	return a.schema.Resolve(pointer, uri)
}

// JSONProp implements jsonschema.JSONPather.
func (a *additionalItems) JSONProp(name string) any { return a.schema.JSONProp(name) }

// ValidateKeyword implements jsonschema.Keyword.
func (a *additionalItems) ValidateKeyword(ctx context.Context, state *jsonschema.ValidationState, data any) {
	arr, ok := data.([]any)
	if !ok {
		return
	}
	it, ok := sibling(state, "items").(*items)
	if !ok || it.rest != nil {
		return
	}
	for i := len(it.schemas); i < len(arr); i++ {
		if a.never {
			refuseItem(state, arr, i, len(it.schemas), "additionalItems")
			return
		}
		validateItem(ctx, state, arr, i, &a.schema, "additionalItems")
	}
}

// refuseItem reports arr[i], the first item past the n a schema allows
// (keyword is false).
func refuseItem(state *jsonschema.ValidationState, arr []any, i, n int, keyword string) {
	sub := state.NewSubState()
	sub.DescendInstance(strconv.Itoa(i))
	sub.AddError(arr[i], fmt.Sprintf("at most %d items are allowed (%s is false), got %d", n, keyword, len(arr)))
}

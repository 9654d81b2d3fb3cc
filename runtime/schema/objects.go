package schema

import (
	"fmt"
	"sort"
	"strings"
)

// objects reads the object keywords in the node's draft (draft-07's
// "dependencies" as dependentRequired and dependentSchemas).
func (b *builder) objects() error {
	n := b.n
	for _, k := range []string{"properties", "patternProperties", "dependentSchemas", "dependentRequired", "dependencies", "$defs", "definitions"} {
		if v, ok := b.m[k]; ok {
			if _, isObj := v.(map[string]any); !isObj {
				return fmt.Errorf("%s: must be an object", b.at(k))
			}
		}
	}
	if pm, ok := b.m["properties"].(map[string]any); ok {
		n.properties = make(map[string]*node, len(pm))
		for name := range pm {
			sub, err := b.sub("properties", name)
			if err != nil {
				return err
			}
			n.properties[name] = sub
			n.propertyOrder = append(n.propertyOrder, name)
		}
		sort.Strings(n.propertyOrder)
	}
	if pp, ok := b.m["patternProperties"].(map[string]any); ok {
		srcs := make([]string, 0, len(pp))
		for src := range pp {
			srcs = append(srcs, src)
		}
		sort.Strings(srcs)
		for _, src := range srcs {
			re, err := b.newPattern(src, b.at("patternProperties")+"/"+escapeToken(src))
			if err != nil {
				return err
			}
			sub, err := b.sub("patternProperties", src)
			if err != nil {
				return err
			}
			n.patternProperties = append(n.patternProperties, patternNode{re, sub})
		}
	}
	var err error
	if n.additionalProperties, err = b.one("additionalProperties"); err != nil {
		return err
	}
	if n.propertyNames, err = b.one("propertyNames"); err != nil {
		return err
	}
	if b.draft != draft7 {
		if n.unevaluatedProperties, err = b.one("unevaluatedProperties"); err != nil {
			return err
		}
		if n.unevaluatedProperties != nil {
			n.hasUneval = true
		}
		if ds, ok := b.m["dependentSchemas"].(map[string]any); ok {
			for name := range ds {
				if err := b.dependentSchema("dependentSchemas", name); err != nil {
					return err
				}
			}
		}
	}
	if deps, ok := b.m["dependencies"].(map[string]any); ok {
		// Draft-07's keyword, still read in later drafts (as the suite's
		// optional dependencies-compatibility cases expect).
		for name, d := range deps {
			if arr, ok := d.([]any); ok {
				if err := b.dependentRequired(name, arr); err != nil {
					return err
				}
			} else if err := b.dependentSchema("dependencies", name); err != nil {
				return err
			}
		}
	}
	if !b.validationOn() {
		n.minProperties, n.maxProperties = 0, -1
		return nil
	}
	if r, ok := b.m["required"].([]any); ok {
		for _, e := range r {
			name, ok := e.(string)
			if !ok {
				return fmt.Errorf("%s: must be an array of strings", b.at("required"))
			}
			n.required = append(n.required, name)
		}
	}
	if b.draft != draft7 {
		if dr, ok := b.m["dependentRequired"].(map[string]any); ok {
			for name, d := range dr {
				arr, ok := d.([]any)
				if !ok {
					return fmt.Errorf("%s: must be an array of strings", b.at("dependentRequired")+"/"+escapeToken(name))
				}
				if err := b.dependentRequired(name, arr); err != nil {
					return err
				}
			}
		}
	}
	if n.minProperties, err = b.count("minProperties", 0); err != nil {
		return err
	}
	n.maxProperties, err = b.count("maxProperties", -1)
	return err
}

func (b *builder) dependentSchema(kw, name string) error {
	sub, err := b.sub(kw, name)
	if err != nil {
		return err
	}
	if b.n.dependentSchemas == nil {
		b.n.dependentSchemas, b.n.dependentKw = map[string]*node{}, map[string]string{}
	}
	b.n.dependentSchemas[name], b.n.dependentKw[name] = sub, kw
	return nil
}

func (b *builder) dependentRequired(name string, arr []any) error {
	if b.n.dependentRequired == nil {
		b.n.dependentRequired = map[string][]string{}
	}
	names := []string{}
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return fmt.Errorf("%s: dependencies of %q must be strings", b.ptr, name)
		}
		names = append(names, s)
	}
	b.n.dependentRequired[name] = names
	return nil
}

// objects checks the object keywords.
func (s *state) objects(n *node, o map[string]any, p *ipath, ev *evaluated) bool {
	ok := true
	bad := func(r bool) bool {
		if !r {
			ok = false
		}
		return !r && !s.collect
	}
	for _, name := range n.required {
		if _, present := o[name]; !present {
			msg := fmt.Sprintf("%q is required", name)
			if bad(s.fail(&ipath{parent: p, key: name}, "required", msg)) {
				return false
			}
		}
	}
	if n.minProperties > 0 && len(o) < n.minProperties && bad(s.fail(p, "minProperties", fmt.Sprintf("must have at least %d properties, not %d", n.minProperties, len(o)))) {
		return false
	}
	if n.maxProperties >= 0 && len(o) > n.maxProperties && bad(s.fail(p, "maxProperties", fmt.Sprintf("must have at most %d properties, not %d", n.maxProperties, len(o)))) {
		return false
	}
	for _, name := range sortedKeys(n.dependentRequired) {
		deps := n.dependentRequired[name]
		if _, present := o[name]; !present {
			continue
		}
		for _, d := range deps {
			if _, has := o[d]; !has {
				msg := fmt.Sprintf("%q is required when %q is present", d, name)
				if bad(s.fail(&ipath{parent: p, key: d}, "dependentRequired", msg)) {
					return false
				}
			}
		}
	}
	if n.additionalProperties == nil && len(n.patternProperties) == 0 && ev == nil {
		// The usual tool schema: only "properties" to look up.
		for _, name := range n.propertyOrder {
			if v, present := o[name]; present && bad(s.subMember(n.properties[name], v, p, name, nil, "properties", name)) {
				return false
			}
		}
	} else if bad(s.eachProperty(n, o, p, ev)) {
		return false
	}
	if n.propertyNames != nil {
		for _, name := range sortedKeys(o) {
			if bad(s.subMember(n.propertyNames, name, p, name, nil, "propertyNames")) {
				return false
			}
		}
	}
	for _, name := range sortedKeys(n.dependentSchemas) {
		if _, present := o[name]; present && bad(s.sub(n.dependentSchemas[name], o, p, ev, n.dependentKw[name], name)) {
			return false
		}
	}
	return ok
}

// eachProperty applies properties, patternProperties and
// additionalProperties to each member, and records them evaluated.
func (s *state) eachProperty(n *node, o map[string]any, p *ipath, ev *evaluated) bool {
	ok := true
	names := make([]string, 0, len(o))
	for name := range o {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v := o[name]
		covered := false
		if sub, has := n.properties[name]; has {
			covered = true
			if !s.subMember(sub, v, p, name, nil, "properties", name) {
				ok = false
				if !s.collect {
					return false
				}
			}
		}
		for _, pp := range n.patternProperties {
			m, err := pp.re.re.Match(name, s.budget)
			if err != nil {
				s.stop(err, &ipath{parent: p, key: name}, "patternProperties")
				return false
			}
			if !m {
				continue
			}
			covered = true
			if !s.subMember(pp.sch, v, p, name, nil, "patternProperties", pp.re.src) {
				ok = false
				if !s.collect {
					return false
				}
			}
		}
		if !covered && n.additionalProperties != nil {
			covered = true
			before := len(s.errs)
			if !s.subMember(n.additionalProperties, v, p, name, nil, "additionalProperties") {
				ok = false
				if n.additionalProperties.isBool && len(s.errs) == before+1 {
					// Name the property, not only "false schema".
					s.errs[len(s.errs)-1] = Violation{Path: (&ipath{parent: p, key: name}).String(), Keyword: "additionalProperties",
						Message:         fmt.Sprintf("%q is not allowed (additionalProperties is false); allowed: %s", name, allowed(n)),
						KeywordLocation: s.location("additionalProperties")}
				}
				if !s.collect {
					return false
				}
			}
		}
		if covered && ev != nil {
			ev.addProp(name)
		}
	}
	return ok
}

// allowed lists the names "properties" declares, for a message.
func allowed(n *node) string {
	if len(n.propertyOrder) == 0 {
		return "none"
	}
	if len(n.propertyOrder) > 20 {
		return strings.Join(n.propertyOrder[:20], ", ") + ", …"
	}
	return strings.Join(n.propertyOrder, ", ")
}

// unevaluatedProperties checks the members no keyword of this schema, nor
// of its in-place subschemas that passed, evaluated.
func (s *state) unevaluatedProperties(n *node, o map[string]any, p *ipath, ev *evaluated) bool {
	if n.unevaluatedProperties == nil {
		return true
	}
	ok := true
	names := make([]string, 0, len(o))
	for name := range o {
		if !ev.hasProp(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		before := len(s.errs)
		if !s.subMember(n.unevaluatedProperties, o[name], p, name, nil, "unevaluatedProperties") {
			ok = false
			if n.unevaluatedProperties.isBool && len(s.errs) == before+1 {
				s.errs[len(s.errs)-1] = Violation{Path: (&ipath{parent: p, key: name}).String(), Keyword: "unevaluatedProperties",
					Message:         fmt.Sprintf("%q is not allowed (unevaluatedProperties is false)", name),
					KeywordLocation: s.location("unevaluatedProperties")}
			}
			if !s.collect {
				return false
			}
		}
	}
	ev.allProps = true
	return ok
}

// sortedKeys is m's keys in order, so that violations come in the same
// order every time (and the same ones are kept past MaxViolations).
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

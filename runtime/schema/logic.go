package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// applicators reads allOf, anyOf, oneOf, not and if/then/else.
func (b *builder) applicators() error {
	if b.vocab != nil && !b.vocab.applicator {
		return nil
	}
	var err error
	if b.n.allOf, err = b.subs("allOf"); err != nil {
		return err
	}
	if b.n.anyOf, err = b.subs("anyOf"); err != nil {
		return err
	}
	if b.n.oneOf, err = b.subs("oneOf"); err != nil {
		return err
	}
	if arr, ok := b.m["oneOf"].([]any); ok {
		b.n.oneOfTitles = make([]string, len(arr))
		for i, s := range arr {
			if m, ok := s.(map[string]any); ok {
				b.n.oneOfTitles[i], _ = m["title"].(string)
			}
		}
	}
	if b.n.not, err = b.one("not"); err != nil {
		return err
	}
	if b.n.ifNode, err = b.one("if"); err != nil {
		return err
	}
	if b.n.ifNode != nil {
		if b.n.then, err = b.one("then"); err != nil {
			return err
		}
		if b.n.elseN, err = b.one("else"); err != nil {
			return err
		}
	}
	return nil
}

// applicators checks allOf, anyOf, oneOf, not and if/then/else.
func (s *state) applicators(n *node, v any, p *ipath, ev *evaluated) bool {
	ok := true
	for _, sub := range n.allOf {
		if !s.validate(sub, v, p, ev) {
			ok = false
			if !s.collect {
				return false
			}
		}
	}
	if len(n.anyOf) > 0 && !s.anyOf(n, v, p, ev) {
		ok = false
		if !s.collect {
			return false
		}
	}
	if len(n.oneOf) > 0 && !s.oneOf(n, v, p, ev) {
		ok = false
		if !s.collect {
			return false
		}
	}
	if n.not != nil {
		if s.quiet(func() bool { return s.validate(n.not, v, p, nil) }) {
			ok = s.fail(p, "not", "must not match the schema in \"not\"")
			if !s.collect {
				return false
			}
		}
	}
	if n.ifNode != nil {
		var ifEv *evaluated
		if ev != nil {
			ifEv = &evaluated{}
		}
		if s.quiet(func() bool { return s.validate(n.ifNode, v, p, ifEv) }) {
			if ev != nil {
				ev.merge(ifEv)
			}
			if n.then != nil && !s.validate(n.then, v, p, ev) {
				ok = false
			}
		} else if n.elseN != nil && !s.validate(n.elseN, v, p, ev) {
			ok = false
		}
	}
	return ok
}

// anyOf passes when a branch matches; every branch runs when annotations
// are collected, so that each matching one counts as evaluated.
func (s *state) anyOf(n *node, v any, p *ipath, ev *evaluated) bool {
	matched := false
	s.quiet(func() bool {
		for _, sub := range n.anyOf {
			var bev *evaluated
			if ev != nil {
				bev = &evaluated{}
			}
			if s.validate(sub, v, p, bev) {
				matched = true
				if ev == nil {
					return true
				}
				ev.merge(bev)
			}
		}
		return matched
	})
	if s.fatal != nil {
		return false
	}
	if !matched {
		return s.fail(p, "anyOf", fmt.Sprintf("must match at least one of the %d anyOf schemas, matched none", len(n.anyOf)))
	}
	return true
}

// oneOf passes when exactly one branch matches, and names the branches
// that matched when more than one did.
func (s *state) oneOf(n *node, v any, p *ipath, ev *evaluated) bool {
	var matched []int
	var first *evaluated
	s.quiet(func() bool {
		for i, sub := range n.oneOf {
			var bev *evaluated
			if ev != nil {
				bev = &evaluated{}
			}
			if s.validate(sub, v, p, bev) {
				matched = append(matched, i)
				first = bev
			}
		}
		return true
	})
	if s.fatal != nil {
		return false
	}
	switch len(matched) {
	case 1:
		if ev != nil {
			ev.merge(first)
		}
		return true
	case 0:
		return s.fail(p, "oneOf", fmt.Sprintf("must match exactly one of the %d oneOf schemas, matched none", len(n.oneOf)))
	}
	names := make([]string, len(matched))
	for j, i := range matched {
		names[j] = strconv.Itoa(i)
		if i < len(n.oneOfTitles) && n.oneOfTitles[i] != "" {
			names[j] += " (" + strconv.Quote(n.oneOfTitles[i]) + ")"
		}
	}
	return s.fail(p, "oneOf", fmt.Sprintf("must match exactly one of the %d oneOf schemas, matched %d: branches %s",
		len(n.oneOf), len(matched), strings.Join(names, ", ")))
}

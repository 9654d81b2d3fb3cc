package schema

import (
	"fmt"
	"strconv"
)

// arrays reads the array keywords in the node's draft: 2020-12's
// prefixItems and items, or the array form of items and additionalItems
// before it; contains with minContains and maxContains; unevaluatedItems.
func (b *builder) arrays() error {
	n := b.n
	var err error
	_, isArr := b.m["items"].([]any)
	switch {
	case isArr:
		n.prefixKw, n.itemsKw = "items", "additionalItems"
		if n.prefixItems, err = b.subs("items"); err != nil {
			return err
		}
		if b.draft != draft2020 {
			if n.items, err = b.one("additionalItems"); err != nil {
				return err
			}
		}
	default:
		n.prefixKw, n.itemsKw = "prefixItems", "items"
		if b.draft == draft2020 {
			if n.prefixItems, err = b.subs("prefixItems"); err != nil {
				return err
			}
		}
		if n.items, err = b.one("items"); err != nil {
			return err
		}
	}
	if n.contains, err = b.one("contains"); err != nil {
		return err
	}
	if b.draft != draft7 {
		if n.minContains, err = b.count("minContains", 1); err != nil {
			return err
		}
		if n.maxContains, err = b.count("maxContains", -1); err != nil {
			return err
		}
		if n.unevaluatedItems, err = b.one("unevaluatedItems"); err != nil {
			return err
		}
		if n.unevaluatedItems != nil {
			n.hasUneval = true
		}
	}
	n.containsAnnotates = b.draft == draft2020
	if b.validationOn() {
		if n.minItems, err = b.count("minItems", 0); err != nil {
			return err
		}
		if n.maxItems, err = b.count("maxItems", -1); err != nil {
			return err
		}
		n.uniqueItems, _ = b.m["uniqueItems"].(bool)
	} else {
		n.minContains, n.maxContains = 1, -1
	}
	return nil
}

// arrays checks the array keywords.
func (s *state) arrays(n *node, a []any, p *ipath, ev *evaluated) bool {
	ok := true
	bad := func(r bool) bool {
		if !r {
			ok = false
		}
		return !r && !s.collect
	}
	if n.minItems > 0 && len(a) < n.minItems && bad(s.fail(p, "minItems", fmt.Sprintf("must have at least %d items, not %d", n.minItems, len(a)))) {
		return false
	}
	if n.maxItems >= 0 && len(a) > n.maxItems && bad(s.fail(p, "maxItems", fmt.Sprintf("must have at most %d items, not %d", n.maxItems, len(a)))) {
		return false
	}
	if n.uniqueItems {
		i, j, dup := s.duplicate(a, p)
		if s.fatal != nil {
			return false
		}
		if dup && bad(s.fail(p, "uniqueItems", fmt.Sprintf("items %d and %d are equal; items must be unique", i, j))) {
			return false
		}
	}
	for i, item := range a {
		var ok bool
		switch {
		case i < len(n.prefixItems):
			ok = s.subItem(n.prefixItems[i], item, p, i, nil, n.prefixKw, strconv.Itoa(i))
		case n.items != nil:
			ok = s.subItem(n.items, item, p, i, nil, n.itemsKw)
		default:
			continue
		}
		if bad(ok) {
			return false
		}
	}
	if ev != nil {
		if n.items != nil {
			ev.allItems = true
		} else {
			ev.items = max(ev.items, min(len(n.prefixItems), len(a)))
		}
	}
	if n.contains != nil && bad(s.contains(n, a, p, ev)) {
		return false
	}
	return ok
}

// contains counts the items that match "contains" against minContains
// and maxContains.
func (s *state) contains(n *node, a []any, p *ipath, ev *evaluated) bool {
	count := 0
	all := ev != nil && n.containsAnnotates || n.maxContains >= 0 || n.minContains != 1
	s.quiet(func() bool {
		for i, item := range a {
			if s.subItem(n.contains, item, p, i, nil, "contains") {
				count++
				if ev != nil && n.containsAnnotates {
					if ev.itemIdx == nil {
						ev.itemIdx = map[int]struct{}{}
					}
					ev.itemIdx[i] = struct{}{}
				}
				if !all {
					return true
				}
			}
		}
		return true
	})
	if count < n.minContains {
		if n.minContains == 1 {
			return s.fail(p, "contains", "must contain an item that matches \"contains\"")
		}
		return s.fail(p, "minContains", fmt.Sprintf("must contain at least %d items that match \"contains\", not %d", n.minContains, count))
	}
	if n.maxContains >= 0 && count > n.maxContains {
		return s.fail(p, "maxContains", fmt.Sprintf("must contain at most %d items that match \"contains\", not %d", n.maxContains, count))
	}
	return true
}

// unevaluatedItems checks the items no keyword of this schema, nor of its
// in-place subschemas that passed, evaluated.
func (s *state) unevaluatedItems(n *node, a []any, p *ipath, ev *evaluated) bool {
	if n.unevaluatedItems == nil {
		return true
	}
	ok := true
	for i, item := range a {
		if ev.hasItem(i) {
			continue
		}
		if !s.subItem(n.unevaluatedItems, item, p, i, nil, "unevaluatedItems") {
			ok = false
			if !s.collect {
				return false
			}
		}
	}
	ev.allItems = true
	return ok
}

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
	b.n.anyOfTitles, b.n.oneOfTitles = titles(b.m["anyOf"]), titles(b.m["oneOf"])
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

// titles lists the "title" of each schema of an anyOf or oneOf ("" for
// none), to name the branches in messages.
func titles(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, len(arr))
	for i, s := range arr {
		if m, ok := s.(map[string]any); ok {
			out[i], _ = m["title"].(string)
		}
	}
	return out
}

// applicators checks allOf, anyOf, oneOf, not and if/then/else.
func (s *state) applicators(n *node, v any, p *ipath, ev *evaluated) bool {
	ok := true
	for i, sub := range n.allOf {
		if !s.sub(sub, v, p, ev, "allOf", strconv.Itoa(i)) {
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
		if s.quiet(func() bool { return s.sub(n.not, v, p, nil, "not") }) && s.fatal == nil {
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
		if s.quiet(func() bool { return s.sub(n.ifNode, v, p, ifEv, "if") }) {
			if ev != nil {
				ev.merge(ifEv)
			}
			if n.then != nil && !s.sub(n.then, v, p, ev, "then") {
				ok = false
			}
		} else if n.elseN != nil && !s.sub(n.elseN, v, p, ev, "else") {
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
		for i, sub := range n.anyOf {
			var bev *evaluated
			if ev != nil {
				bev = &evaluated{}
			}
			if s.sub(sub, v, p, bev, "anyOf", strconv.Itoa(i)) {
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
		return s.noBranch(n.anyOf, n.anyOfTitles, "anyOf", v, p, fmt.Sprintf("must match at least one of the %d anyOf schemas", len(n.anyOf)))
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
			if s.sub(sub, v, p, bev, "oneOf", strconv.Itoa(i)) {
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
		return s.noBranch(n.oneOf, n.oneOfTitles, "oneOf", v, p, fmt.Sprintf("must match exactly one of the %d oneOf schemas", len(n.oneOf)))
	}
	names := make([]string, len(matched))
	for j, i := range matched {
		names[j] = branchName(i, n.oneOfTitles)
	}
	return s.fail(p, "oneOf", fmt.Sprintf("must match exactly one of the %d oneOf schemas, matched %d: branches %s",
		len(n.oneOf), len(matched), strings.Join(names, ", ")))
}

// maxBranchErrors bounds the errors reported of the closest branch of a
// failed anyOf or oneOf, and maxBranches the other branches its message
// sums up.
const (
	maxBranchErrors = 20
	maxBranches     = 8
)

// noBranch records an anyOf or oneOf none of whose branches matched: the
// violation names the closest branch, whose own errors follow it (under
// its keyword location, /anyOf/i/...), and sums up why each other branch
// failed, so a model can repair the value toward the alternative it
// meant. The closest branch is the one whose errors are fewest, counting
// a type mismatch of the value itself as the farthest and a const or enum
// mismatch (a discriminator) as far; each other branch is summed up by its
// farthest error.
func (s *state) noBranch(branches []*node, titles []string, kw string, v any, p *ipath, msg string) bool {
	if !s.collect {
		return false
	}
	type outcome struct {
		errs  []Violation
		score int
		worst int // the error that sets the branch farthest apart, to sum it up
	}
	outs := make([]outcome, len(branches))
	best := 0
	here := p.String()
	for i, b := range branches {
		saved, more := s.errs, s.more
		s.errs = nil
		s.sub(b, v, p, nil, kw, strconv.Itoa(i))
		errs := s.errs
		s.errs, s.more = saved, more
		if s.fatal != nil {
			return false
		}
		score, worst, worstWeight := 0, 0, 0
		for j, e := range errs {
			w := 1
			switch {
			case e.Keyword == "type" && e.Path == here:
				w = 1000
			case e.Keyword == "const" || e.Keyword == "enum":
				w = 10
			}
			score += w
			if w > worstWeight {
				worst, worstWeight = j, w
			}
		}
		outs[i] = outcome{errs, score, worst}
		if score < outs[best].score {
			best = i
		}
	}
	var others []string
	for i, o := range outs {
		if i == best || len(o.errs) == 0 {
			continue
		}
		if len(others) == maxBranches {
			others = append(others, "…")
			break
		}
		e := o.errs[o.worst]
		at := ""
		if e.Path != here {
			at = " at " + e.Path
		}
		others = append(others, fmt.Sprintf("%s%s: %s", branchName(i, titles), at, e.Message))
	}
	msg += fmt.Sprintf("; the closest is %s, whose errors follow (under %s)", branchName(best, titles), s.location(kw)+"/"+strconv.Itoa(best))
	if len(others) > 0 {
		msg += "; the others fail as " + strings.Join(others, "; ")
	}
	s.fail(p, kw, msg)
	errs := outs[best].errs
	if len(errs) > maxBranchErrors {
		errs = errs[:maxBranchErrors]
	}
	for _, e := range errs {
		if len(s.errs) >= MaxViolations {
			s.more++
			continue
		}
		s.errs = append(s.errs, e)
	}
	return false
}

// branchName names branch i of an anyOf or oneOf: its index, and its
// title when it has one.
func branchName(i int, titles []string) string {
	name := "#" + strconv.Itoa(i)
	if i < len(titles) && titles[i] != "" {
		name += " (" + strconv.Quote(titles[i]) + ")"
	}
	return name
}

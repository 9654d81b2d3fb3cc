package regex

import "unicode/utf8"

// pike runs a linear program over s: a Thompson NFA simulation that keeps
// at most one thread per instruction, so it takes at most one step per
// instruction per character (and as many again following jumps). It
// reports whether a match exists anywhere in s.
func pike(m *pikeRun, s string, anchoredAtStart bool, b *Budget) (bool, error) {
	p := m.p
	m.s, m.b = s, b
	m.cur.clear()
	m.next.clear()
	if found, err := m.add(m.cur, 0, 0); found || err != nil {
		return found, err
	}
	for pos := 0; pos < len(s); {
		if m.cur.len() == 0 && anchoredAtStart {
			return false, nil
		}
		r, w := utf8.DecodeRuneInString(s[pos:])
		next := pos + w
		m.next.clear()
		for _, pc := range m.cur.dense {
			in := &p.insts[pc]
			if in.op != opSet {
				continue
			}
			if err := b.Spend(1); err != nil {
				return false, err
			}
			if in.set.has(r) {
				if found, err := m.add(m.next, pc+1, next); found || err != nil {
					return found, err
				}
			}
		}
		m.cur, m.next = m.next, m.cur
		pos = next
		if !anchoredAtStart {
			if found, err := m.add(m.cur, 0, pos); found || err != nil {
				return found, err
			}
		}
	}
	return false, nil
}

// newPikeRun makes the state of a run of p, which the Regexp keeps for
// its next match (a match allocates nothing).
func newPikeRun(p *prog) *pikeRun {
	n := len(p.insts)
	return &pikeRun{p: p, cur: newSparse(n), next: newSparse(n), stack: make([]int, 0, 16)}
}

type pikeRun struct {
	p         *prog
	s         string
	b         *Budget
	cur, next *sparse
	stack     []int
}

// add follows jumps, splits and assertions from pc at pos and puts the
// instructions reached into l; true when one is the match.
func (m *pikeRun) add(l *sparse, pc, pos int) (bool, error) {
	m.stack = append(m.stack[:0], pc)
	for len(m.stack) > 0 {
		pc := m.stack[len(m.stack)-1]
		m.stack = m.stack[:len(m.stack)-1]
		if l.has(pc) {
			continue
		}
		l.add(pc)
		if err := m.b.Spend(1); err != nil {
			return false, err
		}
		in := &m.p.insts[pc]
		switch in.op {
		case opMatch:
			return true, nil
		case opJmp:
			m.stack = append(m.stack, in.x)
		case opSplit:
			m.stack = append(m.stack, in.y, in.x)
		case opAssert:
			if holds(in.assert, m.s, pos) {
				m.stack = append(m.stack, pc+1)
			}
		}
	}
	return false, nil
}

// holds reports whether an assertion holds at pos in s.
func holds(a assertion, s string, pos int) bool {
	switch a {
	case aBegin:
		return pos == 0
	case aEnd:
		return pos == len(s)
	}
	before := pos > 0 && isWordByte(s[pos-1])
	after := pos < len(s) && isWordByte(s[pos])
	return (before != after) == (a == aWord)
}

// sparse is a set of instruction numbers that clears in constant time.
type sparse struct {
	dense  []int
	sparse []int
}

func newSparse(n int) *sparse { return &sparse{dense: make([]int, 0, n), sparse: make([]int, n)} }

func (s *sparse) has(i int) bool {
	j := s.sparse[i]
	return j < len(s.dense) && s.dense[j] == i
}

func (s *sparse) add(i int) {
	s.sparse[i] = len(s.dense)
	s.dense = append(s.dense, i)
}

func (s *sparse) len() int { return len(s.dense) }
func (s *sparse) clear()   { s.dense = s.dense[:0] }

package regex

import "unicode/utf8"

// frameKind is what a saved frame of the backtracking engine undoes or
// retries.
type frameKind uint8

const (
	fBranch   frameKind = iota // resume at pc, pos a
	fRestore                   // regs[a] = b
	fStarBack                  // a greedy one-code-point loop: give one back (a: the least position, b: the current)
	fStarMore                  // a lazy one: take one more (a: position, b: count)
)

// frame is one entry of the backtracking stack.
type frame struct {
	kind frameKind
	pc   int32
	a, b int32
}

// maxFrames bounds the stack of a match on s: a fixed allowance and a
// frame per two bytes of s, so a match's memory is at most 4 MiB and 8
// times the value's length. A loop over one code point (or over
// alternatives of one code point each) keeps one frame however long it
// runs, so only a pattern whose loops hold longer alternatives or groups
// reaches the bound, on a long value.
func maxFrames(s string) int { return 1<<18 + len(s)/2 }

// backtracker runs a backtracking program on one value, following
// ECMA-262's matcher semantics: alternatives and greedy loops try their
// first choice first, a loop iteration that matches the empty string
// beyond the minimum fails, groups in a loop are cleared at each
// iteration, lookarounds are atomic and a negative one leaves no
// capture, and a lookbehind reads backwards.
type backtracker struct {
	p     *prog
	s     string
	b     *Budget
	regs  []int32
	stack []frame
	limit int
	err   error
	depth int
}

func backtrack(p *prog, s string, anchoredAtStart bool, b *Budget) (bool, error) {
	return newBacktracker(p).match(s, anchoredAtStart, b)
}

// newBacktracker makes the state of a run of p, which the Regexp keeps
// for its next match.
func newBacktracker(p *prog) *backtracker {
	return &backtracker{p: p, regs: make([]int32, p.regs)}
}

func (m *backtracker) match(s string, anchoredAtStart bool, b *Budget) (bool, error) {
	m.s, m.b, m.limit, m.err, m.depth = s, b, maxFrames(s), nil, 0
	defer func() {
		if cap(m.stack) > 1<<16 {
			m.stack = nil // a long value's stack is not kept
		}
	}()
	for start := 0; start <= len(s); {
		for i := range m.regs {
			m.regs[i] = -1
		}
		m.stack = m.stack[:0]
		if m.run(0, start) {
			return true, nil
		}
		if m.err != nil {
			return false, m.err
		}
		if anchoredAtStart || start == len(s) {
			break
		}
		_, w := utf8.DecodeRuneInString(s[start:])
		start += w
	}
	return false, nil
}

func (m *backtracker) push(f frame) bool {
	if len(m.stack) >= m.limit {
		m.err = ErrMemory
		return false
	}
	m.stack = append(m.stack, f)
	return true
}

// set changes a register, saving its old value for backtracking.
func (m *backtracker) set(r int, v int32) bool {
	if m.regs[r] == v {
		return true
	}
	if !m.push(frame{kind: fRestore, a: int32(r), b: m.regs[r]}) {
		return false
	}
	m.regs[r] = v
	return true
}

// step reads one code point from pos, forwards or backwards.
func (m *backtracker) step(pos int, back bool) (rune, int, bool) {
	if back {
		if pos == 0 {
			return 0, 0, false
		}
		r, w := utf8.DecodeLastRuneInString(m.s[:pos])
		return r, pos - w, true
	}
	if pos >= len(m.s) {
		return 0, 0, false
	}
	r, w := utf8.DecodeRuneInString(m.s[pos:])
	return r, pos + w, true
}

// run runs the program from pc at pos until opMatch or opLookEnd (true)
// or until every choice saved since it began has failed (false, with the
// stack as it found it and every register it changed restored).
func (m *backtracker) run(pc, pos int) bool {
	base := len(m.stack)
	for {
		if m.err = m.b.Spend(1); m.err != nil {
			return false
		}
		in := &m.p.insts[pc]
		ok := true
		switch in.op {
		case opMatch, opLookEnd:
			return true
		case opSet:
			r, next, more := m.step(pos, in.back)
			if ok = more && in.set.has(r); ok {
				pc, pos = pc+1, next
			}
		case opJmp:
			pc = in.x
		case opSplit:
			if ok = m.push(frame{kind: fBranch, pc: int32(in.y), a: int32(pos)}); ok {
				pc = in.x
			}
		case opAssert:
			if ok = holds(in.assert, m.s, pos); ok {
				pc++
			}
		case opSave:
			if ok = m.set(in.x, int32(pos)); ok {
				pc++
			}
		case opBackref:
			var next int
			if next, ok = m.backref(in, pos); ok {
				pc, pos = pc+1, next
			}
		case opLook:
			if ok = m.look(in, pos); ok {
				pc = in.y
			}
		case opCountInit:
			if ok = m.set(in.x, 0); ok {
				pc++
			}
		case opLoop:
			pc, ok = m.loopHead(in.loop, pos)
		case opLoopStart:
			if ok = m.loopStart(in.loop, pos); ok {
				pc++
			}
		case opLoopEnd:
			pc, ok = m.loopEnd(in.loop, pos)
		case opStar:
			pos, ok = m.star(in, pc, pos)
			pc++
		}
		if m.err != nil {
			return false
		}
		if ok {
			continue
		}
		if pc, pos, ok = m.fail(base); !ok {
			return false
		}
	}
}

// fail undoes frames down to base until one offers another choice: its
// pc and position, or false when none does (or the budget ran out).
func (m *backtracker) fail(base int) (int, int, bool) {
	for len(m.stack) > base {
		if m.err = m.b.Spend(1); m.err != nil {
			return 0, 0, false
		}
		f := m.stack[len(m.stack)-1]
		m.stack = m.stack[:len(m.stack)-1]
		switch f.kind {
		case fRestore:
			m.regs[f.a] = f.b
		case fBranch:
			return int(f.pc), int(f.a), true
		case fStarBack:
			in := &m.p.insts[f.pc]
			_, prev, _ := m.step(int(f.b), !in.back)
			if prev != int(f.a) {
				m.stack = append(m.stack, frame{kind: fStarBack, pc: f.pc, a: f.a, b: int32(prev)})
			}
			return int(f.pc) + 1, prev, true
		case fStarMore:
			in := &m.p.insts[f.pc]
			if in.loop.max >= 0 && int(f.b) >= in.loop.max {
				continue
			}
			r, next, more := m.step(int(f.a), in.back)
			if !more || !in.set.has(r) {
				continue
			}
			m.stack = append(m.stack, frame{kind: fStarMore, pc: f.pc, a: int32(next), b: f.b + 1})
			return int(f.pc) + 1, next, true
		}
	}
	return 0, 0, false
}

// star runs a loop over one code point: the least it must take, then,
// greedy, as many more as it can (one frame gives them back one at a
// time), or, lazy, none yet (one frame takes them one at a time).
func (m *backtracker) star(in *inst, pc, pos int) (int, bool) {
	l := in.loop
	count := 0
	for ; count < l.min; count++ {
		if m.err = m.b.Spend(1); m.err != nil {
			return 0, false
		}
		r, next, more := m.step(pos, in.back)
		if !more || !in.set.has(r) {
			return 0, false
		}
		pos = next
	}
	if !l.greedy {
		if l.max < 0 || count < l.max {
			if !m.push(frame{kind: fStarMore, pc: int32(pc), a: int32(pos), b: int32(count)}) {
				return 0, false
			}
		}
		return pos, true
	}
	least := pos
	for l.max < 0 || count < l.max {
		r, next, more := m.step(pos, in.back)
		if !more || !in.set.has(r) {
			break
		}
		if m.err = m.b.Spend(1); m.err != nil {
			return 0, false
		}
		pos = next
		count++
	}
	if pos != least && !m.push(frame{kind: fStarBack, pc: int32(pc), a: int32(least), b: int32(pos)}) {
		return 0, false
	}
	return pos, true
}

// loopHead decides whether a general loop runs its body again: it must
// below its minimum, cannot at its maximum, and otherwise tries its
// preferred choice first and saves the other.
func (m *backtracker) loopHead(l *loop, pos int) (int, bool) {
	body := l.head + 1
	if l.count >= 0 {
		n := int(m.regs[l.count])
		if n < l.min {
			return body, true
		}
		if l.max >= 0 && n >= l.max {
			return l.exit, true
		}
	}
	if l.greedy {
		return body, m.push(frame{kind: fBranch, pc: int32(l.exit), a: int32(pos)})
	}
	return l.exit, m.push(frame{kind: fBranch, pc: int32(body), a: int32(pos)})
}

// loopStart begins an iteration: where it starts, for the empty check,
// and its groups cleared.
func (m *backtracker) loopStart(l *loop, pos int) bool {
	if l.pos >= 0 && !m.set(l.pos, int32(pos)) {
		return false
	}
	for g := l.capLo; g < l.capHi; g++ {
		if !m.set(2*g, -1) || !m.set(2*g+1, -1) {
			return false
		}
	}
	return true
}

// loopEnd ends an iteration: one past the minimum that matched the empty
// string fails; otherwise it is counted and the head decides again.
func (m *backtracker) loopEnd(l *loop, pos int) (int, bool) {
	n := 0
	if l.count >= 0 {
		n = int(m.regs[l.count])
	}
	if l.pos >= 0 && n >= l.min && int(m.regs[l.pos]) == pos {
		return 0, false
	}
	if l.count >= 0 && !m.set(l.count, int32(n+1)) {
		return 0, false
	}
	return l.head, true
}

// backref matches the text group in.x captured (nothing when it captured
// nothing), forwards or backwards.
func (m *backtracker) backref(in *inst, pos int) (int, bool) {
	lo, hi := m.regs[2*in.x], m.regs[2*in.x+1]
	if lo < 0 || hi < 0 {
		return pos, true
	}
	text := m.s[lo:hi]
	if m.err = m.b.Spend(int64(len(text))); m.err != nil {
		return 0, false
	}
	if in.back {
		if pos < len(text) || m.s[pos-len(text):pos] != text {
			return 0, false
		}
		return pos - len(text), true
	}
	if len(m.s)-pos < len(text) || m.s[pos:pos+len(text)] != text {
		return 0, false
	}
	return pos + len(text), true
}

// look runs a lookaround's body at pos. A positive one that matched keeps
// what its groups captured (the saved registers stay, to be restored if
// the match backtracks past it) but none of its choices: it is atomic. A
// negative one holds when its body fails, and leaves nothing behind.
func (m *backtracker) look(in *inst, pos int) bool {
	if m.depth++; m.depth > maxNesting {
		m.err = ErrMemory
		return false
	}
	defer func() { m.depth-- }()
	base := len(m.stack)
	matched := m.run(in.x, pos)
	if m.err != nil {
		return false
	}
	if !matched {
		return in.negate
	}
	if in.negate {
		for len(m.stack) > base {
			f := m.stack[len(m.stack)-1]
			m.stack = m.stack[:len(m.stack)-1]
			if f.kind == fRestore {
				m.regs[f.a] = f.b
			}
		}
		return false
	}
	kept := m.stack[:base]
	for _, f := range m.stack[base:] {
		if f.kind == fRestore {
			kept = append(kept, f)
		}
	}
	m.stack = kept
	return true
}

package regex

// op is an engine instruction.
type op uint8

const (
	opSet       op = iota // one code point of set, in dir
	opSplit               // try x, then y
	opJmp                 // go to x
	opAssert              // assert holds here
	opMatch               // the pattern matched
	opSave                // regs[x] = position
	opBackref             // the text of group x again, in dir
	opLook                // run the lookaround whose body is x, continue at y
	opLookEnd             // the lookaround's body matched
	opCountInit           // regs[x] = 0
	opLoop                // a general loop's head (see loop)
	opLoopStart           // regs[loop.pos] = position; clear the loop's groups
	opLoopEnd             // the empty check, then count and go back to the head
	opStar                // a loop over one code point of set (see loop)
)

// inst is one instruction.
type inst struct {
	op     op
	back   bool // read backwards (inside a lookbehind)
	set    *charSet
	x, y   int
	assert assertion
	negate bool // opLook
	loop   *loop
}

// loop is a quantifier as the backtracking engine runs it.
type loop struct {
	min, max     int // max -1: unbounded
	greedy       bool
	count        int // the register counting iterations; -1 when min is 0 and max unbounded
	pos          int // the register of the iteration's start; -1 when the body never matches empty
	capLo, capHi int // groups cleared at each iteration
	head, exit   int
}

// prog is a compiled pattern.
type prog struct {
	insts []inst
	regs  int // registers: 2 per group (from group 0), then the loops'
}

// maxLinearInsts bounds the linear program: counted quantifiers are
// written out there, and each instruction costs a step per character.
const maxLinearInsts = 4096

// compileLinear builds the program of the linear engine, or returns false
// when the pattern needs the backtracking engine (a lookaround or a
// backreference) or would be too large written out.
func compileLinear(n *node) (*prog, bool) {
	c := &linearCompiler{}
	if !c.emit(n) {
		return nil, false
	}
	c.p.insts = append(c.p.insts, inst{op: opMatch})
	return &c.p, len(c.p.insts) <= maxLinearInsts
}

type linearCompiler struct{ p prog }

func (c *linearCompiler) add(i inst) int {
	c.p.insts = append(c.p.insts, i)
	return len(c.p.insts) - 1
}

func (c *linearCompiler) emit(n *node) bool {
	if len(c.p.insts) > maxLinearInsts {
		return false
	}
	switch n.kind {
	case kEmpty:
	case kSet:
		c.add(inst{op: opSet, set: n.set})
	case kAssert:
		c.add(inst{op: opAssert, assert: n.assert})
	case kGroup:
		return c.emit(n.subs[0])
	case kConcat:
		for _, s := range n.subs {
			if !c.emit(s) {
				return false
			}
		}
	case kAlt:
		var jumps []int
		for i, s := range n.subs {
			if i == len(n.subs)-1 {
				if !c.emit(s) {
					return false
				}
				break
			}
			split := c.add(inst{op: opSplit})
			c.p.insts[split].x = len(c.p.insts)
			if !c.emit(s) {
				return false
			}
			jumps = append(jumps, c.add(inst{op: opJmp}))
			c.p.insts[split].y = len(c.p.insts)
		}
		for _, j := range jumps {
			c.p.insts[j].x = len(c.p.insts)
		}
	case kRepeat:
		sub := n.subs[0]
		for range n.min {
			if !c.emit(sub) {
				return false
			}
		}
		if n.max < 0 {
			split := c.add(inst{op: opSplit})
			c.p.insts[split].x = len(c.p.insts)
			if !c.emit(sub) {
				return false
			}
			c.add(inst{op: opJmp, x: split})
			c.p.insts[split].y = len(c.p.insts)
			break
		}
		var splits []int
		for range n.max - n.min {
			split := c.add(inst{op: opSplit})
			c.p.insts[split].x = len(c.p.insts)
			splits = append(splits, split)
			if !c.emit(sub) {
				return false
			}
		}
		for _, s := range splits {
			c.p.insts[s].y = len(c.p.insts)
		}
		if !n.greedy {
			for _, s := range splits {
				c.p.insts[s].x, c.p.insts[s].y = c.p.insts[s].y, c.p.insts[s].x
			}
		}
	default: // kLook, kBackref
		return false
	}
	return true
}

// compileBacktrack builds the program of the backtracking engine.
func compileBacktrack(n *node, groups int) *prog {
	c := &backCompiler{}
	c.p.regs = 2 * (groups + 1)
	c.emit(n, false)
	c.add(inst{op: opMatch})
	return &c.p
}

type backCompiler struct{ p prog }

func (c *backCompiler) add(i inst) int {
	c.p.insts = append(c.p.insts, i)
	return len(c.p.insts) - 1
}

func (c *backCompiler) reg() int {
	c.p.regs++
	return c.p.regs - 1
}

// emit compiles n, reading forwards or (back, inside a lookbehind)
// backwards: a sequence then runs from its last term to its first, and
// a group saves its end before its start.
func (c *backCompiler) emit(n *node, back bool) {
	switch n.kind {
	case kEmpty:
	case kSet:
		c.add(inst{op: opSet, set: n.set, back: back})
	case kAssert:
		c.add(inst{op: opAssert, assert: n.assert})
	case kBackref:
		c.add(inst{op: opBackref, x: n.index, back: back})
	case kGroup:
		first, last := 2*n.index, 2*n.index+1
		if back {
			first, last = last, first
		}
		c.add(inst{op: opSave, x: first})
		c.emit(n.subs[0], back)
		c.add(inst{op: opSave, x: last})
	case kConcat:
		if back {
			for i := len(n.subs) - 1; i >= 0; i-- {
				c.emit(n.subs[i], back)
			}
			break
		}
		for _, s := range n.subs {
			c.emit(s, back)
		}
	case kAlt:
		var jumps []int
		for i, s := range n.subs {
			if i == len(n.subs)-1 {
				c.emit(s, back)
				break
			}
			split := c.add(inst{op: opSplit})
			c.p.insts[split].x = len(c.p.insts)
			c.emit(s, back)
			jumps = append(jumps, c.add(inst{op: opJmp}))
			c.p.insts[split].y = len(c.p.insts)
		}
		for _, j := range jumps {
			c.p.insts[j].x = len(c.p.insts)
		}
	case kLook:
		look := c.add(inst{op: opLook, negate: n.negate})
		c.p.insts[look].x = len(c.p.insts)
		c.emit(n.subs[0], n.behind)
		c.add(inst{op: opLookEnd})
		c.p.insts[look].y = len(c.p.insts)
	case kRepeat:
		c.repeat(n, back)
	}
}

func (c *backCompiler) repeat(n *node, back bool) {
	if n.max == 0 {
		return // matches the empty string, and clears nothing (ECMA-262 RepeatMatcher step 1)
	}
	sub := n.subs[0]
	if sub.kind == kSet {
		c.add(inst{op: opStar, set: sub.set, back: back, loop: &loop{min: n.min, max: n.max, greedy: n.greedy}})
		return
	}
	l := &loop{min: n.min, max: n.max, greedy: n.greedy, count: -1, pos: -1, capLo: n.capLo, capHi: n.capHi}
	if n.min > 0 || n.max >= 0 {
		l.count = c.reg()
		c.add(inst{op: opCountInit, x: l.count})
	}
	if nullable(sub) {
		l.pos = c.reg()
	}
	l.head = c.add(inst{op: opLoop, loop: l})
	if l.pos >= 0 || l.capHi > l.capLo {
		c.add(inst{op: opLoopStart, loop: l})
	}
	c.emit(sub, back)
	c.add(inst{op: opLoopEnd, loop: l})
	l.exit = len(c.p.insts)
}

// nullable reports whether n can match the empty string (so a loop over
// it needs ECMA-262's empty check).
func nullable(n *node) bool {
	switch n.kind {
	case kEmpty, kAssert, kLook, kBackref:
		return true
	case kSet:
		return false
	case kGroup:
		return nullable(n.subs[0])
	case kRepeat:
		return n.min == 0 || nullable(n.subs[0])
	case kConcat:
		for _, s := range n.subs {
			if !nullable(s) {
				return false
			}
		}
		return true
	case kAlt:
		for _, s := range n.subs {
			if nullable(s) {
				return true
			}
		}
	}
	return false
}

// anchored reports whether every match of n starts at the beginning of
// the input (n starts with ^ on every path).
func anchored(n *node) bool {
	switch n.kind {
	case kAssert:
		return n.assert == aBegin
	case kGroup:
		return anchored(n.subs[0])
	case kConcat:
		return len(n.subs) > 0 && anchored(n.subs[0])
	case kAlt:
		for _, s := range n.subs {
			if !anchored(s) {
				return false
			}
		}
		return true
	}
	return false
}

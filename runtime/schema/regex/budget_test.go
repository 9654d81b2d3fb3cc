package regex

import (
	"errors"
	"strings"
	"testing"
)

// The catastrophic pattern has no lookaround or backreference: it
// runs on the linear engine, in a number of steps that grows with the
// value, not exponentially.
func TestCatastrophicPatternsWithoutLookaroundRunInLinearSteps(t *testing.T) {
	re, err := Compile(`^(a+)+$`)
	if err != nil || !re.Linear() {
		t.Fatalf("compile: %v, linear %v", err, re.Linear())
	}
	for _, n := range []int{40, 400, 4000} {
		b := &Budget{Steps: 1 << 40}
		m, err := re.Match(strings.Repeat("a", n)+"!", b)
		used := 1<<40 - b.Steps
		if m || err != nil {
			t.Fatalf("n=%d: %v %v", n, m, err)
		}
		bound := int64((2*len(re.linear.insts) + 1) * (n + 2))
		if used > bound {
			t.Errorf("n=%d: %d steps, more than (2·instructions+1)·(length+2) = %d", n, used, bound)
		}
	}
}

// A catastrophic pattern that needs the backtracking engine runs until
// its budget is spent, and spends exactly as much every time: the verdict
// depends on steps, not on how busy the machine is.
func TestBacktrackingStopsAtItsBudgetTheSameWayEveryTime(t *testing.T) {
	re, err := Compile(`^(?=a)(a+)+$`)
	if err != nil || re.Linear() {
		t.Fatalf("compile: %v, linear %v", err, re.Linear())
	}
	value := strings.Repeat("a", 40) + "!"
	for range 3 {
		b := &Budget{Steps: 1_000_000}
		m, err := re.Match(value, b)
		if m || !errors.Is(err, ErrSteps) || b.Steps != 0 {
			t.Fatalf("match %v, err %v, %d steps left; want ErrSteps with none left", m, err, b.Steps)
		}
	}
	// With enough steps, a short one is decided.
	b := &Budget{Steps: 1_000_000}
	if m, err := re.Match(strings.Repeat("a", 10)+"!", b); m || err != nil {
		t.Errorf("10 a's: %v %v", m, err)
	}
}

func TestAMatchStopsWhenItsBudgetIsDone(t *testing.T) {
	re := mustCompile(t, `^(?=a)(a+)+$`)
	done := make(chan struct{})
	close(done)
	b := &Budget{Steps: 1 << 40, Done: done}
	if _, err := re.Match(strings.Repeat("a", 40)+"!", b); !errors.Is(err, ErrStopped) {
		t.Errorf("err %v, want ErrStopped", err)
	}
}

// A loop over a group keeps frames per iteration; on a value far longer
// than the fixed allowance the match stops with ErrMemory, while a loop
// over one code point keeps one frame whatever the length.
func TestBacktrackingMemoryIsBoundedByTheValue(t *testing.T) {
	long := strings.Repeat("ab", 1<<20)
	if _, err := mustCompile(t, `^(?=.)(?:ab|ba)*$`).Match(long, &Budget{Steps: 1 << 40}); !errors.Is(err, ErrMemory) {
		t.Errorf("alternatives: err %v, want ErrMemory", err)
	}
	for _, p := range []string{`^(?=.)[ab]*$`, `^(?=.)(?:a|b)*$`} {
		if m, err := mustCompile(t, p).Match(long, &Budget{Steps: 1 << 40}); !m || err != nil {
			t.Errorf("%s: %v %v", p, m, err)
		}
	}
}

func mustCompile(t *testing.T, p string) *Regexp {
	t.Helper()
	re, err := Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

// A match allocates nothing once its Regexp has run one: a million
// values each checked against a pattern cost no garbage each.
func TestAMatchAllocatesNothing(t *testing.T) {
	for _, p := range []string{`^[a-z]+(?:-[a-z]+)*$`, `^(?=.*\d)\w+$`} {
		re := mustCompile(t, p)
		b := &Budget{Steps: 1 << 40}
		re.Match("warm-up-1", b)
		if n := testing.AllocsPerRun(100, func() { re.Match("some-value-1", b) }); n != 0 {
			t.Errorf("%s: %v allocations per match", p, n)
		}
	}
}

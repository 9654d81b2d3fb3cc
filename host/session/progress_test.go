package session

import (
	"strings"
	"testing"
	"time"

	"github.com/gnosis/gnosis/runtime"
	"github.com/google/go-cmp/cmp"
)

// fakeClock is the coalescer's timer under test control: each wait the
// coalescer starts is announced on armed and ends when the test fires it.
type fakeClock struct {
	armed chan time.Duration
	fire  chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{armed: make(chan time.Duration, 1), fire: make(chan time.Time)}
}

func (f *fakeClock) after(d time.Duration) <-chan time.Time {
	f.armed <- d
	return f.fire
}

func report(n float64) runtime.Progress { return runtime.Progress{Progress: n} }

func TestCoalescerSendsTheLatestReportOncePerInterval(t *testing.T) {
	clock := newFakeClock()
	emitted := make(chan float64, 100)
	c := newCoalescer(func(p runtime.Progress) { emitted <- p.Progress }, ProgressInterval, clock.after)

	c.offer(report(1))
	if got := <-emitted; got != 1 {
		t.Fatalf("first report: got %v, want 1 at once", got)
	}
	if d := <-clock.armed; d != ProgressInterval {
		t.Fatalf("waits %v after an event, want %v", d, ProgressInterval)
	}
	// Within the interval: held back, each replacing the one before.
	for i := 2; i <= 50; i++ {
		c.offer(report(float64(i)))
	}
	select {
	case got := <-emitted:
		t.Fatalf("emitted %v before the interval ended", got)
	default:
	}
	clock.fire <- time.Time{}
	if got := <-emitted; got != 50 {
		t.Fatalf("after the interval: got %v, want the latest (50)", got)
	}
	<-clock.armed
	c.offer(report(51))
	c.offer(report(52))
	c.close() // the pending report goes out before close returns
	close(emitted)
	var rest []float64
	for p := range emitted {
		rest = append(rest, p)
	}
	if diff := cmp.Diff([]float64{52}, rest); diff != "" {
		t.Errorf("at close (-want +got):\n%s", diff)
	}
	c.offer(report(53)) // after close: dropped, and no panic
}

func TestCoalescerDeliversTheLastReportWhenTheIntervalEnds(t *testing.T) {
	clock := newFakeClock()
	emitted := make(chan float64, 10)
	c := newCoalescer(func(p runtime.Progress) { emitted <- p.Progress }, ProgressInterval, clock.after)
	defer c.close()
	c.offer(report(1))
	<-emitted
	<-clock.armed
	c.offer(report(2)) // the server then goes quiet for a long time
	clock.fire <- time.Time{}
	if got := <-emitted; got != 2 {
		t.Errorf("got %v, want 2 without waiting for the call to end", got)
	}
	<-clock.armed
}

func TestCoalescerPassesEveryReportThatComesAfterTheInterval(t *testing.T) {
	clock := newFakeClock()
	emitted := make(chan float64, 10)
	c := newCoalescer(func(p runtime.Progress) { emitted <- p.Progress }, ProgressInterval, clock.after)
	defer c.close()
	for i := 1.0; i <= 4; i++ {
		c.offer(report(i)) // the interval since the last event has passed: out at once
		if got := <-emitted; got != i {
			t.Fatalf("got %v, want %v", got, i)
		}
		<-clock.armed
		clock.fire <- time.Time{}
	}
	select {
	case got := <-emitted:
		t.Errorf("emitted %v more", got)
	default:
	}
}

func TestCoalescerWithoutReportsStartsNothing(t *testing.T) {
	c := newCoalescer(func(runtime.Progress) { t.Error("emitted without a report") }, ProgressInterval,
		func(time.Duration) <-chan time.Time { t.Error("timer started without a report"); return nil })
	c.close()
	if c.started {
		t.Error("a goroutine was started")
	}
}

func TestProgressEventShape(t *testing.T) {
	total := 10.0
	tests := []struct {
		name string
		in   runtime.Progress
		want string
	}{
		{"progress only", runtime.Progress{Progress: 3}, `{"event":"progress","progress":3}`},
		{"with total and message", runtime.Progress{Progress: 2.5, Total: &total, Message: "copying"}, `{"event":"progress","progress":2.5,"total":10,"message":"copying"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := marshal(newProgressEvent(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	long := newProgressEvent(runtime.Progress{Message: strings.Repeat("é", 2000)})
	if len(long.Message) > maxProgressMessage+len("…") || !strings.HasSuffix(long.Message, "é…") {
		t.Errorf("a long message is cut on a character boundary to about %d bytes: got %d bytes", maxProgressMessage, len(long.Message))
	}
}

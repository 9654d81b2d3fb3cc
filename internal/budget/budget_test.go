package budget

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestTryTakeStopsAtTheLimit(t *testing.T) {
	b := New(10)
	for _, tc := range []struct {
		n    int64
		want bool
	}{{6, true}, {5, false}, {4, true}, {1, false}} {
		if got := b.TryTake(tc.n); got != tc.want {
			t.Fatalf("TryTake(%d) with %d held = %v, want %v", tc.n, b.Held(), got, tc.want)
		}
	}
	b.Release(10)
	if b.Held() != 0 {
		t.Errorf("held %d after everything came back", b.Held())
	}
}

// acquireAsync starts an Acquire and returns its outcome channel.
func acquireAsync(ctx context.Context, b *Budget, n int64) <-chan error {
	out := make(chan error, 1)
	go func() { out <- b.Acquire(ctx, n) }()
	return out
}

func TestAcquireWaitsForReturnedBytes(t *testing.T) {
	b := New(10)
	if err := b.Acquire(context.Background(), 8); err != nil {
		t.Fatal(err)
	}
	waiting := acquireAsync(context.Background(), b, 5)
	// The waiter is counted before it checks: once it waits, Return must
	// wake it.
	for b.waiters.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-waiting:
		t.Fatalf("Acquire(5) with 8 of 10 acquired returned %v before any came back", err)
	default:
	}
	b.Return(8)
	if err := <-waiting; err != nil {
		t.Fatal(err)
	}
	if b.Held() != 5 {
		t.Errorf("held %d, want 5", b.Held())
	}
}

func TestAcquireAloneIsGrantedPastTheLimit(t *testing.T) {
	b := New(10)
	if !b.TryTake(10) { // requests fill the budget
		t.Fatal("TryTake(10) of 10")
	}
	if err := b.Acquire(context.Background(), 4); err != nil {
		t.Fatalf("a lone Acquire behind taken bytes: %v", err)
	}
	waiting := acquireAsync(context.Background(), b, 1)
	for b.waiters.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	b.Return(4) // now alone again
	if err := <-waiting; err != nil {
		t.Fatal(err)
	}
}

func TestAcquireEndsWithItsContext(t *testing.T) {
	b := New(10)
	if err := b.Acquire(context.Background(), 10); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	waiting := acquireAsync(ctx, b, 1)
	cancel()
	if err := <-waiting; !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire after cancel: %v", err)
	}
	if b.Held() != 10 {
		t.Errorf("held %d, want 10: a failed Acquire counts nothing", b.Held())
	}
}

// TestAcquireKeepsManyWithinTheLimit: goroutines acquiring and returning at
// once never take the total past the limit, and all get through.
func TestAcquireKeepsManyWithinTheLimit(t *testing.T) {
	const limit, n, each = 100, 64, 30
	b := New(limit)
	var peak atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if err := b.Acquire(context.Background(), each); err != nil {
					t.Error(err)
					return
				}
				if h := b.Held(); h > peak.Load() {
					peak.Store(h)
				}
				b.Return(each)
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > limit {
		t.Errorf("peak %d past the limit %d", p, limit)
	}
	if b.Held() != 0 {
		t.Errorf("held %d at the end", b.Held())
	}
}

func TestReserveUsesTheContextsReserver(t *testing.T) {
	if err := Reserve(context.Background(), 1<<40); err != nil {
		t.Errorf("Reserve without a reserver: %v", err)
	}
	var got int64
	ctx := WithReserver(context.Background(), func(_ context.Context, n int64) error { got = n; return nil })
	if err := Reserve(ctx, 42); err != nil || got != 42 {
		t.Errorf("Reserve(42) = %v, reserver saw %d", err, got)
	}
}

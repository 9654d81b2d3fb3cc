// Package budget bounds the bytes the host holds in memory for work in
// flight: requests read from the browser, replies being built or waiting to
// be written, results read from a server. A Budget is a byte count with a
// limit. Bytes are taken when they fit (TryTake: work that can be refused at
// once), held whatever the total (Hold: bytes that exist already), or
// acquired, waiting until they fit (Acquire: bytes about to be allocated by
// work that can wait). Taken and held bytes are given back with Release,
// acquired ones with Return.
//
// An Acquire that does not fit is still granted when no other acquired bytes
// are outstanding: a single reply or message larger than the budget goes,
// alone, and taken or held bytes can never keep every acquirer waiting.
//
// The reply bytes a host method produces are acquired through the request's
// context: the session puts a reserver there (WithReserver) and a method
// about to build a large reply calls Reserve first.
package budget

import (
	"context"
	"sync"
	"sync/atomic"
)

// Budget counts bytes against a limit. The zero value has limit 0; use New.
type Budget struct {
	limit   int64
	held    atomic.Int64 // every byte taken, held or acquired
	waiters atomic.Int32 // Acquire calls waiting

	mu       sync.Mutex
	acquired int64         // bytes acquired and not yet returned
	wake     chan struct{} // closed when bytes come back while someone waits
}

// New returns a budget of limit bytes.
func New(limit int64) *Budget { return &Budget{limit: limit} }

// Limit is the budget's limit.
func (b *Budget) Limit() int64 { return b.limit }

// Waiting is the number of Acquire calls waiting for room.
func (b *Budget) Waiting() int { return int(b.waiters.Load()) }

// Held is the bytes counted now.
func (b *Budget) Held() int64 { return b.held.Load() }

// TryTake counts n bytes if that keeps the total within the limit.
func (b *Budget) TryTake(n int64) bool {
	for {
		h := b.held.Load()
		if h+n > b.limit {
			return false
		}
		if b.held.CompareAndSwap(h, h+n) {
			return true
		}
	}
}

// Hold counts n bytes whatever the total.
func (b *Budget) Hold(n int64) { b.held.Add(n) }

// Release gives back n bytes taken or held.
func (b *Budget) Release(n int64) {
	if n == 0 {
		return
	}
	b.held.Add(-n)
	b.wakeWaiters()
}

// Acquire counts n bytes, waiting while they do not fit and other acquired
// bytes are outstanding. It fails only when ctx ends first (with ctx's
// error); the bytes are then not counted.
func (b *Budget) Acquire(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		// Counted as waiting before the check, so a Release that comes
		// after the check sees it and wakes it.
		b.waiters.Add(1)
		if b.held.Load()+n <= b.limit || b.acquired == 0 {
			b.waiters.Add(-1)
			b.acquired += n
			b.held.Add(n)
			b.mu.Unlock()
			return nil
		}
		if b.wake == nil {
			b.wake = make(chan struct{})
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
			b.waiters.Add(-1)
		case <-ctx.Done():
			b.waiters.Add(-1)
			return ctx.Err()
		}
	}
}

// Return gives back n bytes obtained with Acquire.
func (b *Budget) Return(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.acquired -= n
	b.mu.Unlock()
	b.held.Add(-n)
	b.wakeWaiters()
}

// wakeWaiters wakes every waiting Acquire to check again.
func (b *Budget) wakeWaiters() {
	if b.waiters.Load() == 0 {
		return
	}
	b.mu.Lock()
	if b.wake != nil {
		close(b.wake)
		b.wake = nil
	}
	b.mu.Unlock()
}

// reserverKey is the context key of a request's reserver.
type reserverKey struct{}

// WithReserver returns ctx carrying reserve, which Reserve calls.
func WithReserver(ctx context.Context, reserve func(ctx context.Context, n int64) error) context.Context {
	return context.WithValue(ctx, reserverKey{}, reserve)
}

// Reserve counts n bytes of the reply about to be built for the request ctx
// belongs to, against the budget its session keeps for replies; the session
// gives them back once that reply is written. It may wait for room, and
// fails (a *wire.Error with code OVERLOADED, or ctx's error) when there is
// none in time. Without a reserver in ctx it does nothing.
func Reserve(ctx context.Context, n int64) error {
	if r, ok := ctx.Value(reserverKey{}).(func(context.Context, int64) error); ok {
		return r(ctx, n)
	}
	return nil
}

package mcpprovider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rt "github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
)

// unreadPipe is an outbox writing to a pipe the test reads (or not) from r.
func unreadPipe(t *testing.T) (*outbox, *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	o := newOutbox(w, nil)
	t.Cleanup(func() {
		o.close()
		w.Close()
		r.Close()
	})
	return o, r
}

// TestOutboxKeepsOrderAndNeverBlocks pushes far more than a pipe holds into
// one nobody reads: every push returns, and once the reader drains the pipe
// it gets exactly the messages pushed, in order, minus the one withdrawn.
func TestOutboxKeepsOrderAndNeverBlocks(t *testing.T) {
	o, r := unreadPipe(t)
	const n = 300
	var want bytes.Buffer
	pushed := make(chan error, 1)
	go func() {
		for i := range n {
			line := []byte(fmt.Sprintf("%d %s\n", i, strings.Repeat("x", 2000)))
			if err := o.push(fmt.Sprint(i), line); err != nil {
				pushed <- fmt.Errorf("push %d: %w", i, err)
				return
			}
			if i != n-1 {
				want.Write(line)
			}
		}
		pushed <- nil
	}()
	select {
	case err := <-pushed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("push blocked on a pipe nobody reads")
	}
	if waiting, _ := o.waiting(); waiting == 0 {
		t.Fatalf("nothing waits after %d × 2 KB into an unread pipe", n)
	}
	if !o.withdraw(fmt.Sprint(n - 1)) {
		t.Fatal("the last message, still waiting, could not be withdrawn")
	}
	got := make([]byte, want.Len())
	if _, err := io.ReadFull(r, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the pipe carried %d bytes that differ from the %d pushed", len(got), want.Len())
	}
	// The withdrawn message never follows: the next bytes are this one's.
	if err := o.push("end", []byte("end\n")); err != nil {
		t.Fatal(err)
	}
	tail := make([]byte, 4)
	if _, err := io.ReadFull(r, tail); err != nil || string(tail) != "end\n" {
		t.Fatalf("after the drain the pipe carried %q (%v), want the next message", tail, err)
	}
}

// TestOutboxRefusesPastItsBound: with the queue full, a push fails at once
// with errBacklog, which says how much waits.
func TestOutboxRefusesPastItsBound(t *testing.T) {
	o, _ := unreadPipe(t)
	line := []byte(strings.Repeat("y", 4096) + "\n")
	var refused error
	for i := 0; i < 100000 && refused == nil; i++ {
		refused = o.push("", line)
	}
	if !errors.Is(refused, errBacklog) || !strings.Contains(refused.Error(), fmt.Sprintf("%d messages", MaxQueuedMessages)) {
		t.Fatalf("push past the bound: %v; want errBacklog naming %d messages", refused, MaxQueuedMessages)
	}
}

// TestAServerThatStopsReadingFailsOnlyItsOwnCalls: once the server stops
// reading its stdin, calls still return at once; each ends exactly once,
// TIMEOUT (saying the server never read it) or OVERLOADED (saying why), and
// the provider is still ready.
func TestAServerThatStopsReadingFailsOnlyItsOwnCalls(t *testing.T) {
	h := startTestServer(t, Config{Timeout: 2 * time.Second})
	out := h.transport().out
	if _, err := h.prov.Call(context.Background(), "stop_reading", nil); err != nil {
		t.Fatal(err)
	}
	const n = 2000
	args := json.RawMessage(fmt.Sprintf(`{"text":%q}`, strings.Repeat("z", 2000)))
	ends := make([]atomic.Int32, n)
	var mu sync.Mutex
	codes := map[wire.Code]int{}
	messages := map[wire.Code]string{}
	var wg sync.WaitGroup
	wg.Add(n)
	started := make(chan struct{})
	go func() {
		defer close(started)
		for i := range n {
			h.prov.CallAsync(context.Background(), "echo", args, func(_ json.RawMessage, err error) {
				if ends[i].Add(1) != 1 {
					return
				}
				mu.Lock()
				codes[codeOf(err)]++
				if err != nil {
					messages[codeOf(err)] = err.Error()
				}
				mu.Unlock()
				wg.Done()
			})
		}
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("CallAsync blocked on a server that does not read")
	}
	wg.Wait()
	// A request or two the server had read before it stopped may succeed.
	if codes[wire.CodeOverloaded] == 0 || codes[wire.CodeTimeout] == 0 || codes[wire.CodeOverloaded]+codes[wire.CodeTimeout]+codes[""] != n || codes[""] > 2 {
		t.Errorf("outcomes %v; want TIMEOUT and OVERLOADED, some of each", codes)
	}
	if m := messages[wire.CodeOverloaded]; !strings.Contains(m, "not reading its input") {
		t.Errorf("OVERLOADED says %q; want the reason", m)
	}
	if m := messages[wire.CodeTimeout]; !strings.Contains(m, "never read the request") {
		t.Errorf("TIMEOUT of a request still queued says %q; want that the server never read it", m)
	}
	// Requests whose calls ended before they were written are no longer
	// queued (notifications/cancelled for those the server had may be).
	if n := out.queuedRequests(); n > 0 {
		t.Errorf("%d requests still wait after every call ended", n)
	}
	if st := h.prov.Status(); st.State != rt.StateReady {
		t.Errorf("provider %+v, want ready: a server that does not read is not dead", st)
	}
}

// queuedRequests counts the requests (messages with a key) waiting.
func (o *outbox) queuedRequests() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, q := range o.queue {
		if q.key != "" {
			n++
		}
	}
	return n
}

// waiting reports the messages and bytes not yet written .
func (o *outbox) waiting() (int, int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(o.queue)
	if o.current != nil {
		n++
	}
	return n, o.bytes
}

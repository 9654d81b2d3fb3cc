package mcpprovider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	rt "github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
)

func TestCallsInFlightHoldNoGoroutine(t *testing.T) {
	h := startTestServer(t, Config{})
	const n = 100
	before := goruntime.NumGoroutine()
	var wg sync.WaitGroup
	var failed atomic.Int32
	wg.Add(n)
	for range n {
		h.prov.CallAsync(context.Background(), "slow", json.RawMessage(`{"ms":400}`), func(_ json.RawMessage, err error) {
			if err != nil {
				failed.Add(1)
			}
			wg.Done()
		})
	}
	if grew := goruntime.NumGoroutine() - before; grew > n/10 {
		t.Errorf("%d calls in flight added %d goroutines; want none per call", n, grew)
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		t.Errorf("%d of %d calls failed", f, n)
	}
}

// TestEveryCallEndsExactlyOnce races each call's answer against its
// context's end and the provider's timeout: whichever comes first counts,
// and done runs once.
func TestEveryCallEndsExactlyOnce(t *testing.T) {
	h := startTestServer(t, Config{Timeout: 4 * time.Millisecond})
	const rounds, wave = 30, 10 // the server runs 5 calls at a time: waves keep the queue short
	ends := make([]atomic.Int32, rounds*wave)
	seen := map[wire.Code]int{}
	for r := range rounds {
		codes := make(chan wire.Code, wave)
		for j := range wave {
			i := r*wave + j
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(time.Duration(rand.IntN(5000))*time.Microsecond, cancel)
			args := json.RawMessage(fmt.Sprintf(`{"ms":%d}`, rand.IntN(4)))
			h.prov.CallAsync(ctx, "slow", args, func(_ json.RawMessage, err error) {
				if ends[i].Add(1) == 1 {
					codes <- codeOf(err)
				}
			})
		}
		for range wave {
			select {
			case c := <-codes:
				seen[c]++
			case <-time.After(10 * time.Second):
				t.Fatalf("calls still unanswered; outcomes so far %v", seen)
			}
		}
	}
	t.Logf("outcomes %v", seen)
	if st := h.prov.Status(); st.State != rt.StateReady {
		t.Errorf("provider %+v after the race, want ready", st)
	}
	// A second, wrong, end could only come from the transport's reader or
	// a call's timer. Once the provider is closed and the reader has
	// returned, neither can end anything any more.
	tr := h.transport()
	h.rt.Close()
	<-tr.readDone
	for i := range ends {
		if got := ends[i].Load(); got != 1 {
			t.Errorf("call %d ended %d times", i, got)
		}
	}
	for c := range seen {
		if c != "" && c != wire.CodeCancelled && c != wire.CodeTimeout {
			t.Errorf("outcomes %v: want only results, CANCELLED and TIMEOUT", seen)
		}
	}
}

func TestCallsInFlightWhenTheServerExitsEachFailOnce(t *testing.T) {
	h := startTestServer(t, Config{})
	const n = 20
	got := make(chan wire.Code, 2*n)
	for range n {
		h.prov.CallAsync(context.Background(), "slow", json.RawMessage(`{"ms":10000}`), func(_ json.RawMessage, err error) { got <- codeOf(err) })
	}
	// Some run, the others wait in the server's queue.
	waitFor(t, "slow calls to start", 5*time.Second, func() bool { return strings.Contains(h.log.String(), "slow: started") })
	tr := h.transport()
	p, err := os.FindProcess(h.prov.currentPID())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	codes := map[wire.Code]int{}
	for range n {
		codes[<-got]++
	}
	if diff := cmp.Diff(map[wire.Code]int{wire.CodeProviderUnavailable: n}, codes); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	// The dead server's transport has failed every call it held and its
	// reader has returned: nothing can end a call a second time now.
	<-tr.readDone
	<-tr.done
	select {
	case c := <-got:
		t.Errorf("a call ended twice (%s)", c)
	default:
	}
}

// transport is the connection to the running server.
func (h *harness) transport() *pipeTransport {
	h.prov.mu.Lock()
	defer h.prov.mu.Unlock()
	return h.prov.current.tr
}

package mcpprovider

import (
	"bufio"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"
)

// peer is the server side of a pipeTransport over real pipes: the test
// reads the transport's requests and writes what the server would.
type peer struct {
	tr       *pipeTransport
	requests *bufio.Reader
	out      *os.File
}

func newPeer(t *testing.T) *peer {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &peer{tr: newPipeTransport(outR, inW, zerolog.Nop()), requests: bufio.NewReader(inR), out: outW}
	if err := p.tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.tr.Close()
		_ = outW.Close()
		<-p.tr.readDone
		_ = outR.Close()
		_ = inR.Close()
	})
	return p
}

// request reads the transport's next request line.
func (p *peer) request(t *testing.T) string {
	t.Helper()
	line, err := p.requests.ReadString('\n')
	if err != nil {
		t.Fatalf("reading a request: %v", err)
	}
	return line
}

func (p *peer) write(t *testing.T, s string) {
	t.Helper()
	if _, err := p.out.WriteString(s); err != nil {
		t.Fatalf("writing as the server: %v", err)
	}
}

// call sends request n and returns its result or error on a channel.
func (p *peer) call(ctx context.Context, n int) <-chan string {
	done := make(chan string, 1)
	go func() {
		id := "gnosis-" + itoa(n)
		resp, err := p.tr.roundTrip(ctx, "string:"+id, []byte(`{"jsonrpc":"2.0","id":"`+id+`","method":"m"}`+"\n"))
		if err != nil {
			done <- "error: " + err.Error()
			return
		}
		done <- string(resp.Result)
	}()
	return done
}

func replyLine(n int, result string) string {
	return `{"jsonrpc":"2.0","id":"gnosis-` + itoa(n) + `","result":` + result + "}\n"
}

func receive(t *testing.T, what string, ch <-chan string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no answer within 5 s", what)
		return ""
	}
}

func TestACallReadingForItselfStopsWhenCancelledAndTheNextIsAnswered(t *testing.T) {
	p := newPeer(t)
	first := p.call(context.Background(), 1)
	p.request(t)
	p.write(t, replyLine(1, `{"n":1}`))
	if got := receive(t, "first call", first); got != `{"n":1}` {
		t.Fatalf("first call: %s", got)
	}
	// Calls have started: the next one reads for itself.
	ctx, cancel := context.WithCancel(context.Background())
	second := p.call(ctx, 2)
	p.request(t)
	p.write(t, `{"jsonrpc":"2.0","id":"gnosis-2",`) // half a reply, then nothing
	time.Sleep(20 * time.Millisecond)
	cancel()
	if got := receive(t, "cancelled call", second); got != "error: "+context.Canceled.Error() {
		t.Fatalf("cancelled call: %s", got)
	}
	third := p.call(context.Background(), 3)
	p.request(t)
	p.write(t, `"result":{"late":true}}`+"\n"+replyLine(3, `{"n":3}`))
	if got := receive(t, "call after the cancelled one", third); got != `{"n":3}` {
		t.Fatalf("call after the cancelled one: %s", got)
	}
}

func TestAServerMessageBetweenCallsIsStillRead(t *testing.T) {
	p := newPeer(t)
	var got atomic.Value
	p.tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) { got.Store(n.Method) })
	first := p.call(context.Background(), 1)
	p.request(t)
	p.write(t, replyLine(1, `{}`))
	receive(t, "call", first)
	p.write(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`+"\n")
	waitFor(t, "the notification", 2*time.Second, func() bool { return got.Load() != nil })
	if got.Load() != "notifications/tools/list_changed" {
		t.Errorf("notification: %v", got.Load())
	}
}

func TestLinesWrittenWithAReplyAreHandledBeforeTheCallReturns(t *testing.T) {
	p := newPeer(t)
	var (
		mu   sync.Mutex
		last string
	)
	p.tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		mu.Lock()
		last = n.Method
		mu.Unlock()
	})
	warm := p.call(context.Background(), 1)
	p.request(t)
	p.write(t, replyLine(1, `{}`))
	receive(t, "first call", warm)
	for n := 2; n < 12; n++ {
		c := p.call(context.Background(), n)
		p.request(t)
		p.write(t, replyLine(n, `{}`)+`{"jsonrpc":"2.0","method":"progress-`+itoa(n)+`"}`+"\n")
		receive(t, "call "+itoa(n), c)
		mu.Lock()
		got := last
		mu.Unlock()
		if want := "progress-" + itoa(n); got != want {
			t.Fatalf("call %d returned before its trailing notification was handled: last handled %q", n, got)
		}
	}
}

func TestALineInterruptedMidwayIsReadWhole(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	lr := lineReader{br: bufio.NewReaderSize(r, 16)}
	long := strings.Repeat("x", 40) // longer than the buffer
	var lines []string
	if _, err := w.WriteString(long[:30]); err != nil {
		t.Fatal(err)
	}
	if err := r.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Skipf("pipes have no deadlines here: %v", err)
	}
	if line, err := lr.next(); !errors.Is(err, os.ErrDeadlineExceeded) || line != nil {
		t.Fatalf("interrupted read: %q, %v", line, err)
	}
	_ = r.SetReadDeadline(time.Time{})
	if _, err := w.WriteString(long[30:] + "\r\nsecond\n"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		line, err := lr.next()
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(line))
	}
	if diff := cmp.Diff([]string{long, "second"}, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

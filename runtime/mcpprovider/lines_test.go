package mcpprovider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/rs/zerolog"

	rt "github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/wire"
)

func TestAnAnswerPastTheMaximumFailsItsCallAndTheProviderKeepsServing(t *testing.T) {
	const limit = 1 << 20
	h := startTestServer(t, Config{}, WithMaxMessage(limit))
	_, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.big", Arguments: json.RawMessage(`{"bytes":3145728}`)})
	var e *wire.Error
	if !errors.As(err, &e) || e.Code != wire.CodeExecutionError || !strings.Contains(e.Message, "above the 1048576-byte limit") {
		t.Fatalf("a 3 MiB answer with a 1 MiB limit: %v; want EXECUTION_ERROR naming the limit", err)
	}
	if d, _ := e.Details.(map[string]any); d["reason"] != "result-too-large" {
		t.Errorf("details %v, want reason result-too-large", e.Details)
	}
	res, err := h.rt.Execute(context.Background(), rt.Call{Capability: "t.big", Arguments: json.RawMessage(`{"bytes":500000}`)})
	if err != nil || len(res) < 500000 {
		t.Fatalf("the next, smaller answer: %v (%d bytes)", err, len(res))
	}
	if n := len(h.pids(t)); n != 1 {
		t.Errorf("the server was started %d times; a message too large must not cost the connection", n)
	}
	if st := h.prov.Status(); st.State != rt.StateReady {
		t.Errorf("provider %+v, want ready", st)
	}
}

// nopCloser discards what is written.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// lineTransport is a transport reading the lines a test writes.
func lineTransport(t *testing.T, maxMessage int64) (*pipeTransport, *io.PipeWriter) {
	r, w := io.Pipe()
	tr := newPipeTransport(r, nopCloser{io.Discard}, zerolog.Nop(), maxMessage)
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.Close()
		tr.Close()
	})
	return tr, w
}

// expect registers a request with key and returns what its answer receives.
func expect(t *testing.T, tr *pipeTransport, key string, block <-chan struct{}) <-chan error {
	t.Helper()
	got := make(chan error, 1)
	err := tr.send(pendingKey(key), []byte("{}\n"), func(resp *transport.JSONRPCResponse, err error) {
		if block != nil {
			<-block
		}
		got <- err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func answerOf(t *testing.T, got <-chan error) error {
	t.Helper()
	select {
	case err := <-got:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("no answer")
		return nil
	}
}

// TestATooLongLineIsSkippedWhereverItsIDIs: the id may come after a large
// result (the Node SDK writes "result" first); the call it answers fails with
// the line's size, and the next line is read as usual.
func TestATooLongLineIsSkippedWhereverItsIDIs(t *testing.T) {
	tr, w := lineTransport(t, 64<<10)
	first, second := expect(t, tr, "gnosis-1", nil), expect(t, tr, "gnosis-2", nil)
	line := fmt.Sprintf(`{"result":{"content":[{"type":"text","text":"%s"}]},"jsonrpc":"2.0","id":"gnosis-1"}`+"\n", strings.Repeat("x", 1<<20))
	go func() {
		io.WriteString(w, line)
		io.WriteString(w, `{"jsonrpc":"2.0","id":"gnosis-2","result":{"content":[]}}`+"\n")
	}()
	var large *tooLargeError
	if err := answerOf(t, first); !errors.As(err, &large) || large.size != int64(len(line)) || large.limit != 64<<10 {
		t.Fatalf("the too-long answer: %v; want a tooLargeError of %d bytes", err, len(line))
	}
	if err := answerOf(t, second); err != nil {
		t.Fatalf("the next answer: %v", err)
	}
}

// TestLargeAnswersInHandAreBounded: while a large answer is still being
// dealt with, the reader reads no further than the limit allows, and goes on
// once that answer is done.
func TestLargeAnswersInHandAreBounded(t *testing.T) {
	const limit = 1 << 20
	tr, w := lineTransport(t, limit)
	release := make(chan struct{})
	first := expect(t, tr, "gnosis-1", release)
	second := expect(t, tr, "gnosis-2", nil)
	big := func(id string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":{"text":"%s"}}`+"\n", id, strings.Repeat("y", 700<<10))
	}
	go func() {
		io.WriteString(w, big("gnosis-1"))
		io.WriteString(w, big("gnosis-2"))
	}()
	// The first answer is being dealt with; the second line does not fit
	// beside it, so the reader waits.
	waitFor(t, "the reader to wait for room", 10*time.Second, func() bool { return tr.large.Waiting() == 1 })
	select {
	case err := <-second:
		t.Fatalf("the second answer (%v) was read while the first held the room", err)
	default:
	}
	if held := tr.large.Held(); held > limit {
		t.Errorf("%d bytes of large answers in hand, limit %d", held, limit)
	}
	close(release)
	if err := answerOf(t, first); err != nil {
		t.Fatal(err)
	}
	if err := answerOf(t, second); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the room to come back", 10*time.Second, func() bool { return tr.large.Held() == 0 })
}

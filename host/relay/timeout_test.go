package relay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gnosis/gnosis/host/config"
	"github.com/gnosis/gnosis/runtime/wire"
)

// short is the relay's waits in these tests: far below the defaults, so an
// upstream that trickles or stalls is cut quickly.
var short = Config{ResponseHeaderTimeout: config.Duration(300 * time.Millisecond), IdleTimeout: config.Duration(300 * time.Millisecond)}

// fetchOutcome runs one relay.fetch to url and returns its error, failing
// the test if it does not end within a generous bound.
func fetchOutcome(t *testing.T, r *Relay, url string, emit func(any) error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := r.fetch(context.Background(), json.RawMessage(`1`), params(t, Request{URL: url}), emit)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("relay.fetch still waits on the upstream after 30 s")
		return nil
	}
}

// A server that writes its status line and headers one byte at a time, a
// byte every 10 ms, never finishing them: each byte arrives well within any
// idle bound, so only a bound on the whole header wait ends it.
func TestHeadersTrickledByteByByteTimeOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	hungUp := make(chan struct{})
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		bufio.NewReader(c).ReadString('\n') // the request line
		head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Pad: " + strings.Repeat("a", 1<<20)
		for i := 0; i < len(head); i++ {
			if _, err := c.Write([]byte{head[i]}); err != nil {
				close(hungUp)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	err = fetchOutcome(t, New(short), "http://"+ln.Addr().String()+"/v1/chat/completions", nopEmit)
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeTimeout || !strings.Contains(we.Message, "no response status and headers within 300ms (relay.responseHeaderTimeout") {
		t.Fatalf("err = %v, want TIMEOUT naming relay.responseHeaderTimeout", err)
	}
	select {
	case <-hungUp:
	case <-time.After(30 * time.Second):
		t.Fatal("the relay did not hang up on the trickling server")
	}
}

// A server that sends its headers and one byte of body, then nothing: the
// idle bound ends the relay with TIMEOUT, and the upstream sees it hang up.
func TestBodyThatStallsTimesOut(t *testing.T) {
	hungUp := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "d")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(hungUp)
	}))
	defer srv.Close()
	rec := newRecorder()
	err := fetchOutcome(t, New(short), srv.URL+"/v1/chat/completions", rec.emit)
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeTimeout || !strings.Contains(we.Message, "sent nothing for 300ms after 1 body bytes (relay.idleTimeout") {
		t.Fatalf("err = %v, want TIMEOUT naming relay.idleTimeout", err)
	}
	select {
	case <-hungUp:
	case <-time.After(30 * time.Second):
		t.Fatal("the relay did not hang up on the stalled server")
	}
}

// The idle bound is a bound on each wait for bytes, not on the stream: a
// browser slow to take a piece (here three idle bounds) does not cut a
// stream whose server answers at once.
func TestIdleBoundCountsOnlyWaitsForTheServer(t *testing.T) {
	next := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "data: one\n\n")
		w.(http.Flusher).Flush()
		<-next
		io.WriteString(w, "data: two\n\n")
	}))
	defer srv.Close()
	cfg := Config{ResponseHeaderTimeout: config.Duration(time.Second), IdleTimeout: config.Duration(time.Second)}
	var got strings.Builder
	slowBrowser := func(e any) error {
		if d, ok := e.(dataEvent); ok {
			got.WriteString(d.Data)
			if d.Data == "data: one\n\n" {
				time.Sleep(3 * time.Second) // the browser takes its time; the server has sent nothing more yet
				close(next)
			}
		}
		return nil
	}
	if err := fetchOutcome(t, New(cfg), srv.URL+"/v1/chat/completions", slowBrowser); err != nil {
		t.Fatal(err)
	}
	if got.String() != "data: one\n\ndata: two\n\n" {
		t.Errorf("relayed %q", got.String())
	}
}

// Unset, the waits take their documented defaults; a malformed duration is
// a configuration error.
func TestTimeoutsAreConfigurable(t *testing.T) {
	r := New(Config{})
	if r.headerTimeout != DefaultResponseHeaderTimeout || r.idleTimeout != DefaultIdleTimeout {
		t.Errorf("defaults %v, %v", r.headerTimeout, r.idleTimeout)
	}
	var c Config
	if err := json.Unmarshal([]byte(`{"responseHeaderTimeout":"90s","idleTimeout":45}`), &c); err != nil {
		t.Fatal(err)
	}
	r = New(c)
	if r.headerTimeout != 90*time.Second || r.idleTimeout != 45*time.Second {
		t.Errorf("configured %v, %v", r.headerTimeout, r.idleTimeout)
	}
	if err := json.Unmarshal([]byte(`{"idleTimeout":"soon"}`), &c); err == nil {
		t.Error("a malformed idleTimeout was accepted")
	}
}

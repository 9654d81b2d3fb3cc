package relay

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gnosis/gnosis/runtime/wire"
	"github.com/google/go-cmp/cmp"
)

func codeOf(err error) wire.Code {
	if err == nil {
		return ""
	}
	return wire.CodeOf(err)
}

func TestPolicy(t *testing.T) {
	tests := []struct {
		name  string
		allow []string
		url   string
		ok    bool
	}{
		{"default: chat completions", nil, "http://127.0.0.1:11434/v1/chat/completions", true},
		{"default: models", nil, "https://api.example.com/v1/models", true},
		{"default: models with slash", nil, "https://api.example.com/v1/models/", true},
		{"default: other path", nil, "http://127.0.0.1:11434/api/pull", false},
		{"default: ftp", nil, "ftp://example.com/v1/chat/completions", false},
		{"default: file", nil, "file:///etc/v1/models", false},
		{"default: credentials", nil, "http://u:p@example.com/v1/models", false},
		{"default: dot segments", nil, "http://example.com/admin/../v1/models", false},
		{"list: under base", []string{"http://127.0.0.1:11434/v1"}, "http://127.0.0.1:11434/v1/chat/completions", true},
		{"list: base itself", []string{"http://127.0.0.1:11434/v1"}, "http://127.0.0.1:11434/v1", true},
		{"list: host case and default port", []string{"https://API.example.com/v1/"}, "https://api.example.com:443/v1/models", true},
		{"list: other port", []string{"http://127.0.0.1:11434/v1"}, "http://127.0.0.1:8080/v1/chat/completions", false},
		{"list: other scheme", []string{"https://api.example.com/v1"}, "http://api.example.com/v1/chat/completions", false},
		{"list: prefix is not a segment", []string{"http://127.0.0.1:11434/v1"}, "http://127.0.0.1:11434/v10/chat/completions", false},
		{"list: escape with ..", []string{"http://127.0.0.1:11434/v1"}, "http://127.0.0.1:11434/v1/../api/delete", false},
		{"list: escape with %2e%2e", []string{"http://127.0.0.1:11434/v1"}, "http://127.0.0.1:11434/v1/%2E%2e/api/delete", false},
		{"list: escape with %2f", []string{"http://127.0.0.1:11434/v1"}, "http://127.0.0.1:11434/v1/..%2fapi", false},
		{"list: default suffix not enough", []string{"http://127.0.0.1:11434/v1"}, "http://evil.example.com/v1/chat/completions", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := newPolicy(tt.allow)
			if err != nil {
				t.Fatal(err)
			}
			u, err := url.Parse(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if why := p.check(u); (why == "") != tt.ok {
				t.Errorf("check(%s) = %q, want allowed=%v", tt.url, why, tt.ok)
			}
		})
	}
}

func TestBadAllowListIsReportedNotFatal(t *testing.T) {
	for _, allow := range []string{"ftp://x/v1", "http://u:p@x/v1", "http://x/v1?key=1", "not a url at all", "http://x/a/../b"} {
		r := New(Config{Allow: []string{allow}})
		if _, err := r.fetch(context.Background(), nil, json.RawMessage(`{"url":"http://x/v1/models"}`), nopEmit); codeOf(err) != wire.CodeNotConfigured {
			t.Errorf("allow %q: err %v, want NOT_CONFIGURED", allow, err)
		}
	}
}

// recorder collects the events a fetch emits and signals each data piece.
type recorder struct {
	mu     sync.Mutex
	events []map[string]any
	pieces chan string
}

func newRecorder() *recorder { return &recorder{pieces: make(chan string, 100)} }

func (r *recorder) emit(e any) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	r.mu.Lock()
	r.events = append(r.events, m)
	r.mu.Unlock()
	if m["event"] == "relay.data" {
		r.pieces <- m["data"].(string)
	}
	return nil
}

func (r *recorder) data() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var s strings.Builder
	for _, e := range r.events {
		if e["event"] == "relay.data" {
			s.WriteString(e["data"].(string))
		}
	}
	return s.String()
}

func nopEmit(any) error { return nil }

func params(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// An SSE upstream that only sends its next event once the previous one has
// reached the extension: the test passes only if the relay streams.
func TestStreamsServerSentEventsAsTheyArrive(t *testing.T) {
	rec := newRecorder()
	events := []string{"data: {\"n\":1}\n\n", "data: {\"n\":2}\n\n", "data: [DONE]\n\n"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, e := range events {
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
			select {
			case got := <-rec.pieces:
				if got != e {
					t.Errorf("piece = %q, want %q", got, e)
				}
			case <-time.After(5 * time.Second):
				t.Errorf("event %q never reached the extension before the next was sent", e)
				return
			}
		}
	}))
	defer srv.Close()
	r := New(Config{Allow: []string{srv.URL + "/v1"}})
	res, err := r.fetch(context.Background(), json.RawMessage(`"req-1"`),
		params(t, Request{URL: srv.URL + "/v1/chat/completions", Method: "POST", Body: `{"stream":true}`}), rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	got := res.(reply)
	if got.Status != 200 || got.Headers["content-type"] != "text/event-stream" || got.Bytes != int64(len(strings.Join(events, ""))) {
		t.Errorf("reply = %+v", got)
	}
	if first := rec.events[0]; first["event"] != "relay.head" || first["status"] != 200.0 {
		t.Errorf("first event = %v, want relay.head", first)
	}
	for _, e := range rec.events {
		if _, has := e["id"]; has {
			t.Errorf("event %v carries an id; the session adds it", e)
		}
	}
}

const extensionOrigin = "chrome-extension://mbegimjagonemgohdcndepbpfbmlmgdd"

// A gateway like Ollama's default: 403 for extension origins.
func originRejectingGateway(t *testing.T, seen chan<- http.Header) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		if strings.HasPrefix(r.Header.Get("Origin"), "chrome-extension://") {
			http.Error(w, "forbidden origin", http.StatusForbidden)
			return
		}
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"echo":%q,"method":%q}`, body, r.Method)
	}))
}

func TestPassesAGatewayThatRejectsExtensionOrigins(t *testing.T) {
	seen := make(chan http.Header, 1)
	srv := originRejectingGateway(t, seen)
	defer srv.Close()

	// The gateway really does reject what a browser would send.
	req, _ := http.NewRequest("POST", srv.URL+"/v1/chat/completions", nil)
	req.Header.Set("Origin", extensionOrigin)
	direct, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	direct.Body.Close()
	<-seen
	if direct.StatusCode != http.StatusForbidden {
		t.Fatalf("gateway answered %d to an extension origin, want 403", direct.StatusCode)
	}

	rec := newRecorder()
	r := New(Config{})
	res, err := r.fetch(context.Background(), json.RawMessage(`7`), params(t, Request{
		URL: srv.URL + "/v1/chat/completions", Method: "POST", Body: `{"model":"m"}`,
		Headers: map[string]string{"Origin": extensionOrigin, "authorization": "Bearer k", "Content-Type": "application/json",
			"Cookie": "c=1", "Referer": extensionOrigin + "/sidepanel.html", "Sec-Fetch-Site": "cross-site"},
	}), rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.(reply).Status; got != 200 {
		t.Fatalf("status = %d", got)
	}
	if d := cmp.Diff(`{"echo":"{\"model\":\"m\"}","method":"POST"}`, rec.data()); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
	h := <-seen
	for _, name := range []string{"Origin", "Cookie", "Referer", "Sec-Fetch-Site"} {
		if v := h.Get(name); v != "" {
			t.Errorf("upstream received %s: %q", name, v)
		}
	}
	if h.Get("Authorization") != "Bearer k" || h.Get("Content-Type") != "application/json" {
		t.Errorf("upstream headers = %v", h)
	}
}

func TestUpstreamStatusesArePassedOn(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	}))
	defer srv.Close()
	rec := newRecorder()
	res, err := New(Config{}).fetch(context.Background(), json.RawMessage(`1`), params(t, Request{URL: srv.URL + "/v1/models", Method: "GET"}), rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.(reply); got.Status != 429 || got.Headers["retry-after"] != "3" || rec.data() != "slow down\n" {
		t.Errorf("reply = %+v, data %q", got, rec.data())
	}
}

func TestCancelAbortsTheUpstreamRequestMidStream(t *testing.T) {
	upstreamDone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: first\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // hangs until the relay hangs up
		close(upstreamDone)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	rec := newRecorder()
	result := make(chan error, 1)
	go func() {
		_, err := New(Config{}).fetch(ctx, json.RawMessage(`1`), params(t, Request{URL: srv.URL + "/v1/chat/completions"}), rec.emit)
		result <- err
	}()
	select {
	case <-rec.pieces:
	case <-time.After(5 * time.Second):
		t.Fatal("first piece never arrived")
	}
	cancel()
	select {
	case err := <-result:
		if codeOf(err) != wire.CodeCancelled {
			t.Errorf("err = %v, want CANCELLED", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("fetch did not end after cancel")
	}
	select {
	case <-upstreamDone:
	case <-time.After(5 * time.Second):
		t.Fatal("upstream request was not aborted")
	}
}

func TestRefusesURLsOutsideThePolicy(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		http.Redirect(w, r, "/admin/secret", http.StatusFound)
	}))
	defer srv.Close()
	tests := []struct {
		name  string
		allow []string
		url   string
		want  wire.Code
	}{
		{"not a chat endpoint", nil, srv.URL + "/api/delete", wire.CodeForbidden},
		{"not in the allow list", []string{"http://127.0.0.1:1/v1"}, srv.URL + "/v1/chat/completions", wire.CodeForbidden},
		{"javascript", nil, "javascript:alert(1)//chat/completions", wire.CodeForbidden},
		{"redirect out of the allowed paths", nil, srv.URL + "/v1/models", wire.CodeForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Config{Allow: tt.allow}).fetch(context.Background(), json.RawMessage(`1`), params(t, Request{URL: tt.url, Method: "GET"}), nopEmit)
			if codeOf(err) != tt.want {
				t.Errorf("err = %v, want %s", err, tt.want)
			}
		})
	}
	if hits != 1 {
		t.Errorf("upstream hit %d times, want 1 (only the redirecting request)", hits)
	}
}

func TestTextPiecesNeverSplitUTF8AndBase64IsExact(t *testing.T) {
	payload := []byte("héllo wörld ✓ 😀")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, b := range payload { // one byte a flush: every split point
			w.Write([]byte{b})
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
	}))
	defer srv.Close()
	for _, enc := range []string{"text", "base64"} {
		rec := newRecorder()
		_, err := New(Config{}).fetch(context.Background(), json.RawMessage(`1`), params(t, Request{URL: srv.URL + "/v1/models", Method: "GET", Encoding: enc}), rec.emit)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		for _, e := range rec.events[1:] {
			d := e["data"].(string)
			if enc == "base64" {
				b, err := base64.StdEncoding.DecodeString(d)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, b...)
				continue
			}
			if !utf8.ValidString(d) {
				t.Errorf("piece %q is not valid UTF-8", d)
			}
			got = append(got, d...)
		}
		if !bytes.Equal(got, payload) {
			t.Errorf("%s: got %q, want %q", enc, got, payload)
		}
	}
}

func TestOversizedResponsesFail(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("x"), 1000))
	}))
	defer srv.Close()
	_, err := New(Config{}, WithMaxBytes(100)).fetch(context.Background(), json.RawMessage(`1`), params(t, Request{URL: srv.URL + "/v1/models", Method: "GET"}), nopEmit)
	if codeOf(err) != wire.CodeExecutionError || !strings.Contains(err.Error(), "larger than 100 bytes") {
		t.Errorf("err = %v", err)
	}
}

func TestBadParamsAreInvalidRequests(t *testing.T) {
	for _, p := range []string{
		`{"url":"http://x/v1/models","method":"DELETE"}`,
		`{"url":"http://x/v1/models","encoding":"hex"}`,
		`{"url":"http://x/v1/models","verb":"GET"}`,
		`{"url":"http://x/v1/models","headers":{"X-Bad":"a\r\nInjected: 1"}}`,
		`{"url":"http://x/v1/models","headers":{"Bad Name":"a"}}`,
		`{"url":3}`,
		`[]`,
	} {
		if _, err := New(Config{}).fetch(context.Background(), json.RawMessage(`1`), json.RawMessage(p), nopEmit); codeOf(err) != wire.CodeInvalidRequest {
			t.Errorf("%s: err %v, want INVALID_REQUEST", p, err)
		}
	}
}

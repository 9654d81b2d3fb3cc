package relay

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gnosis/gnosis/runtime/wire"
	"github.com/google/go-cmp/cmp"
)

// hit is what an upstream received, as far as leaks are concerned.
type hit struct {
	Method, Path, Query, Body string
	Authorization, Referer    string
	Cookie, ContentType       string
}

// upstream is a real local HTTP server that records every request.
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	hits []hit
}

func newUpstream(t *testing.T, handler http.HandlerFunc) *upstream {
	t.Helper()
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.hits = append(u.hits, hit{r.Method, r.URL.Path, r.URL.RawQuery, string(body),
			r.Header.Get("Authorization"), r.Header.Get("Referer"), r.Header.Get("Cookie"), r.Header.Get("Content-Type")})
		u.mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) received() []hit {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]hit(nil), u.hits...)
}

// outcome is what relay.fetch answered.
type outcome struct {
	Status   int
	Location string
	Code     wire.Code
}

// outcomeOf is what a fetch ended with: its error's code, or the reply's
// status and Location header.
func outcomeOf(res any, err error) outcome {
	if err != nil {
		return outcome{Code: codeOf(err)}
	}
	r := res.(reply)
	return outcome{Status: r.Status, Location: r.Headers["location"]}
}

func TestRedirectsNeverLeaveTheOrigin(t *testing.T) {
	const body = `{"messages":[{"role":"user","content":"private conversation"}]}`
	first := hit{"POST", "/v1/chat/completions", "key=QUERYKEY", body, "Bearer sk-secret", "", "", "application/json"}
	tests := []struct {
		name     string
		status   int
		location func(a, b string) string // where a's first answer points
		want     outcome
		wantA    []hit
		wantB    []hit
	}{
		{
			name: "a 307 to another loopback port is handed back, not followed", status: 307,
			location: func(a, b string) string { return b + "/v1/chat/completions" },
			want:     outcome{Status: 307, Location: "{b}/v1/chat/completions"},
			wantA:    []hit{first},
		},
		{
			name: "a 308 to the same server under another host name is handed back", status: 308,
			location: func(a, b string) string {
				return strings.Replace(a, "127.0.0.1", "localhost", 1) + "/v1/chat/completions"
			},
			want:  outcome{Status: 308, Location: "{a:localhost}/v1/chat/completions"},
			wantA: []hit{first},
		},
		{
			name: "a 302 to another origin is handed back with its Location", status: 302,
			location: func(a, b string) string { return b + "/v1/models?key=QUERYKEY" },
			want:     outcome{Status: 302, Location: "{b}/v1/models?key=QUERYKEY"},
			wantA:    []hit{first},
		},
		{
			name: "a same-origin 307 is followed with the body, the key and no Referer", status: 307,
			location: func(a, b string) string { return "/v2/chat/completions" },
			want:     outcome{Status: 200},
			wantA:    []hit{first, {"POST", "/v2/chat/completions", "", body, "Bearer sk-secret", "", "", "application/json"}},
		},
		{
			name: "a same-origin 302 turns the POST into a GET without body or Referer", status: 302,
			location: func(a, b string) string { return a + "/v1/models" },
			want:     outcome{Status: 200},
			wantA:    []hit{first, {"GET", "/v1/models", "", "", "Bearer sk-secret", "", "", ""}},
		},
		{
			name: "a same-origin redirect is checked against the URL rules before it is followed", status: 307,
			location: func(a, b string) string { return "/api/delete" },
			want:     outcome{Code: wire.CodeForbidden},
			wantA:    []hit{first},
		},
		{
			name: "a same-origin redirect loop stops after five hops", status: 307,
			location: func(a, b string) string { return "/v1/chat/completions?key=QUERYKEY" },
			want:     outcome{Code: wire.CodeExecutionError},
			wantA:    []hit{first, first, first, first, first, first},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "b") })
			var a *upstream
			a = newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/chat/completions" {
					w.Header().Set("Location", tt.location(a.URL, b.URL))
					w.WriteHeader(tt.status)
					return
				}
				io.WriteString(w, "a")
			})
			res, err := New(Config{}).fetch(context.Background(), json.RawMessage(`1`), params(t, Request{
				URL: a.URL + "/v1/chat/completions?key=QUERYKEY", Body: body,
				Headers: map[string]string{"Authorization": "Bearer sk-secret", "Content-Type": "application/json", "Cookie": "sid=1"},
			}), nopEmit)
			got := outcomeOf(res, err)
			want := tt.want
			want.Location = strings.NewReplacer("{a:localhost}", strings.Replace(a.URL, "127.0.0.1", "localhost", 1), "{b}", b.URL).Replace(want.Location)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("outcome (-want +got):\n%s\n(err %v)", d, err)
			}
			if d := cmp.Diff(tt.wantA, a.received()); d != "" {
				t.Errorf("first server received (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantB, b.received()); d != "" {
				t.Errorf("other origin received (-want +got):\n%s", d)
			}
		})
	}
}

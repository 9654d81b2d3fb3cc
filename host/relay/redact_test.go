package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
)

func TestSecretsNeverReachTheLogOrMessages(t *testing.T) {
	const key, qkey, said = "sk-test-SECRET-123", "QUERY-SECRET-456", "PRIVATE-CONVERSATION-789"
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/elsewhere/chat/completions":
			http.Redirect(w, r, other.URL+"/v1/chat/completions?key="+qkey, http.StatusTemporaryRedirect)
		case "/unparsable/chat/completions":
			w.Header().Set("Location", "http://[::1%zz]/v1/models?key="+qkey)
			w.WriteHeader(http.StatusFound)
		case "/moved/chat/completions":
			http.Redirect(w, r, "/v1/chat/completions?key="+qkey, http.StatusTemporaryRedirect)
		default:
			io.WriteString(w, `{"ok":true}`)
		}
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	urls := []string{
		srv.URL + "/v1/chat/completions",           // success
		closedURL + "/v1/chat/completions",         // connection refused
		srv.URL + "/v1/embeddings",                 // forbidden
		srv.URL + "/elsewhere/chat/completions",    // redirect to another origin, handed back
		srv.URL + "/unparsable/chat/completions",   // Location that is not a URL
		srv.URL + "/moved/chat/completions",        // same-origin redirect, followed
		"http://metadata.test/v1/chat/completions", // refused address
	}
	tests := []struct {
		level zerolog.Level
		// what the log must show, proving it is not silent about the request
		want []string
	}{
		{zerolog.InfoLevel, []string{`"url":"` + srv.URL + `/v1/chat/completions"`, `"location":"` + other.URL + `/v1/chat/completions"`}},
		{zerolog.DebugLevel, []string{`"Authorization":"[redacted]"`, `"X-Api-Key":"[redacted]"`, `"X-Custom":"[redacted]"`, `?key=[redacted]`, `"bodyBytes":`}},
	}
	for _, tt := range tests {
		t.Run(tt.level.String(), func(t *testing.T) {
			var logged bytes.Buffer
			r := New(Config{}, WithLogger(zerolog.New(&logged).Level(tt.level)), withHosts(map[string]string{"metadata.test": "169.254.169.254"}))
			headers := map[string]string{"Authorization": "Bearer " + key, "X-Api-Key": key, "X-Note": "Bearer " + key, "X-Custom": key}
			var texts []string
			for _, u := range urls {
				_, err := r.fetch(context.Background(), json.RawMessage(`1`), params(t, Request{URL: u + "?key=" + qkey, Headers: headers,
					Body: `{"api_key":"` + key + `","content":"` + said + `"}`}), nopEmit)
				if err != nil {
					texts = append(texts, err.Error())
				}
			}
			if len(texts) != 3 {
				t.Errorf("errors = %q, want the refused connection, the forbidden path and the refused address", texts)
			}
			texts = append(texts, logged.String())
			var leaks []string
			for _, text := range texts {
				for _, secret := range []string{key, qkey, said} {
					if strings.Contains(text, secret) {
						leaks = append(leaks, secret+" in "+text)
					}
				}
			}
			if d := cmp.Diff([]string(nil), leaks); d != "" {
				t.Errorf("leaks (-want +got):\n%s", d)
			}
			for _, w := range tt.want {
				if !strings.Contains(logged.String(), w) {
					t.Errorf("the log does not show %s:\n%s", w, logged.String())
				}
			}
		})
	}
}

func TestDebugURLKeepsParameterNamesOnly(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://h/v1/models", "http://h/v1/models"},
		{"http://h/v1/models?key=abc", "http://h/v1/models?key=[redacted]"},
		{"http://h/v1/models?key=abc&alt=sse&flag", "http://h/v1/models?key=[redacted]&alt=[redacted]&flag=[redacted]"},
		{"http://h/v1/models?a%20b=c#frag", "http://h/v1/models?a+b=[redacted]"},
	}
	var got, want []string
	for _, tt := range tests {
		u, err := url.Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, debugURL(u))
		want = append(want, tt.want)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("debugURL (-want +got):\n%s", d)
	}
}

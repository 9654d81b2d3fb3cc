package mcpprovider

import (
	"bufio"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
)

// TestTransportAnswersServerRequests: a server may ping us at any time and
// must get an empty result; requests for capabilities we never declared
// (sampling, roots, elicitation) get "method not found", never silence.
func TestTransportAnswersServerRequests(t *testing.T) {
	tests := []struct {
		name, request, want string
	}{
		{"ping with a number id", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{"ping with a string id", `{"jsonrpc":"2.0","id":"p-1","method":"ping","params":{}}`, `{"jsonrpc":"2.0","id":"p-1","result":{}}`},
		{"sampling is not declared", `{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"unsupported request method: sampling/createMessage"}}`},
		{"roots are not declared", `{"jsonrpc":"2.0","id":4,"method":"roots/list"}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"unsupported request method: roots/list"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fromServer, serverOut := io.Pipe()
			toServer, toServerW := io.Pipe()
			tr := newPipeTransport(fromServer, toServerW, zerolog.Nop(), nil)
			tr.start()
			defer tr.Close()
			defer serverOut.Close()
			go serverOut.Write([]byte(tt.request + "\n"))
			got := make(chan string, 1)
			go func() {
				line, _ := bufio.NewReader(toServer).ReadString('\n')
				got <- line
			}()
			select {
			case line := <-got:
				if diff := cmp.Diff(tt.want+"\n", line); diff != "" {
					t.Errorf("answer (-want +got):\n%s", diff)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("no answer to the server's request")
			}
		})
	}
}

// TestTransportDeliversNotificationsAndResponses: notifications reach the
// handler by method; a response reaches the request waiting under its id.
func TestTransportDeliversNotificationsAndResponses(t *testing.T) {
	fromServer, serverOut := io.Pipe()
	_, toServerW := io.Pipe()
	methods := make(chan string, 1)
	tr := newPipeTransport(fromServer, toServerW, zerolog.Nop(), func(m string) { methods <- m })
	tr.start()
	defer tr.Close()
	defer serverOut.Close()
	go serverOut.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n"))
	select {
	case m := <-methods:
		if m != "notifications/tools/list_changed" {
			t.Errorf("notification %q", m)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("notification not delivered")
	}

	for _, tt := range []struct{ key, id string }{{"string:gnosis-1", `"gnosis-1"`}, {"int64:5", `5`}, {`string:a"b`, `"a\"b"`}} {
		ch := make(chan *response, 1)
		tr.mu.Lock()
		tr.pending[tt.key] = ch
		tr.mu.Unlock()
		go serverOut.Write([]byte(`{"jsonrpc":"2.0","id":` + tt.id + `,"result":{"x":1}}` + "\n"))
		select {
		case r := <-ch:
			if diff := cmp.Diff(`{"x":1}`, string(r.result)); diff != "" || r.err != nil {
				t.Errorf("id %s: result (-want +got):\n%s (error %v)", tt.id, diff, r.err)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("response with id %s not routed to key %q", tt.id, tt.key)
		}
	}
}

package relay

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/gnosis/gnosis/runtime/wire"
	"github.com/google/go-cmp/cmp"
)

// A proxy connects wherever it resolves the name to, out of the host's
// sight, so the relay ignores proxy variables and connects directly. The
// test runs its requests in a child process whose environment names a
// recording proxy: net/http reads those variables once per process.
func TestEnvironmentProxiesAreNotUsed(t *testing.T) {
	if os.Getenv("GNOSIS_RELAY_PROXY_CHILD") != "" {
		requestsThroughTheEnvironment(t)
		return
	}
	proxy := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "from the proxy") })
	cmd := exec.Command(os.Args[0], "-test.run=^TestEnvironmentProxiesAreNotUsed$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GNOSIS_RELAY_PROXY_CHILD=1", "HTTP_PROXY="+proxy.URL, "HTTPS_PROXY="+proxy.URL,
		"http_proxy="+proxy.URL, "https_proxy="+proxy.URL, "ALL_PROXY="+proxy.URL, "NO_PROXY=", "no_proxy=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("requests in the child process: %v\n%s", err, out)
	}
	if d := cmp.Diff([]hit(nil), proxy.received()); d != "" {
		t.Errorf("the proxy received (-want +got):\n%s", d)
	}
}

func requestsThroughTheEnvironment(t *testing.T) {
	model := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "from the model") })
	_, port, _ := net.SplitHostPort(model.Listener.Addr().String())
	hosts := map[string]string{"model.test": "127.0.0.1", "metadata.test": "169.254.169.254"}
	tests := []struct {
		name     string
		url      string
		want     outcome
		wantBody string
	}{
		{"a model server is reached directly", "http://model.test:" + port + "/v1/models", outcome{Status: 200}, "from the model"},
		{"a name resolving to the metadata address is refused, not handed to the proxy",
			"http://metadata.test:" + port + "/v1/models", outcome{Code: wire.CodeForbidden}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			rec := newRecorder()
			res, err := New(Config{}, withHosts(hosts)).fetch(ctx, json.RawMessage(`1`), params(t, Request{URL: tt.url, Method: "GET"}), rec.emit)
			got := outcomeOf(res, err)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("outcome (-want +got):\n%s\n(err %v)", d, err)
			}
			if d := cmp.Diff(tt.wantBody, rec.data()); d != "" {
				t.Errorf("body (-want +got):\n%s", d)
			}
		})
	}
}

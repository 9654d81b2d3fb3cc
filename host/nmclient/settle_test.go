package nmclient

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSettleWaitsWhileAProviderIsStarting(t *testing.T) {
	tests := []struct {
		name    string
		health  string
		within  time.Duration
		want    string
		wantErr error
	}{
		{"ready at once", "starting 0", 30 * time.Second, `{"id":"settle.1","ok":true,"n":1,"providers":[{"state":"ready"}]}`, nil},
		{"ready after two starting replies", "starting 2", 30 * time.Second, `{"id":"settle.3","ok":true,"n":3,"providers":[{"state":"ready"}]}`, nil},
		{"a reply not ok ends the wait", "not ok", 30 * time.Second, `{"id":"settle.1","ok":false,"error":true}`, nil},
		{"still starting at the deadline: the last reply", "starting 1000000", 3 * time.Second, "", nil}, // a loaded machine may take a while for the first reply
		{"no reply by the deadline", "silent", 300 * time.Millisecond, "", ErrTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startPeer(t, WithEnv(append(os.Environ(), "NMCLIENT_PEER=1", "NMCLIENT_HEALTH="+tt.health)))
			got, err := c.Settle(10*time.Millisecond, time.After(tt.within))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.want == "" {
				if err == nil && !starting(got) {
					t.Errorf("got %s, want a reply with a provider still starting", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
		})
	}
}

package session

import (
	"context"
	"errors"
	"testing"

	"github.com/gnosis/gnosis/runtime/wire"
)

// A call cancelled on its way (its cancel, or the host's shutdown) is
// CANCELLED to its caller, whatever failed first; a call still running
// keeps its own error.
func TestAStoppedCallIsCancelledWhateverFailedFirst(t *testing.T) {
	down := &wire.Error{Code: wire.CodeProviderUnavailable, Message: `provider "schemas" is down`}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	timedOut, stop := context.WithTimeout(context.Background(), 0)
	defer stop()
	<-timedOut.Done()
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want wire.Code
	}{
		{"a running call keeps its provider's error", context.Background(), down, wire.CodeProviderUnavailable},
		{"a cancelled call whose provider the shutdown stopped", cancelled, down, wire.CodeCancelled},
		{"a cancelled call with a plain error", cancelled, errors.New("broken pipe"), wire.CodeCancelled},
		{"a call past its deadline keeps its error", timedOut, down, wire.CodeProviderUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e *wire.Error
			if !errors.As(cancelledIfStopped(tt.ctx, tt.err), &e) {
				t.Fatalf("not a wire error: %v", cancelledIfStopped(tt.ctx, tt.err))
			}
			if e.Code != tt.want {
				t.Errorf("code %s, want %s", e.Code, tt.want)
			}
		})
	}
}

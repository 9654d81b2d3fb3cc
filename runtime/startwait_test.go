package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gnosis/gnosis/runtime/wire"
)

// deadlined is a fake provider that says when its start gives up.
type deadlined struct {
	*fakeProvider
	deadline time.Time
}

func (d *deadlined) StartDeadline() time.Time { return d.deadline }

// pending starts an execute and returns its outcome channel. The call must
// still be waiting when ExecuteAsync returns: a refusal would have been
// delivered on this goroutine, before it returned.
func pending(t *testing.T, r *Runtime, ctx context.Context, c Call) <-chan error {
	t.Helper()
	out := make(chan error, 1)
	r.ExecuteAsync(ctx, c, func(_ json.RawMessage, err error) { out <- err })
	select {
	case err := <-out:
		t.Fatalf("the call ended at once (%v); want it to wait for the starting provider", err)
	default:
	}
	return out
}

func ended(t *testing.T, out <-chan error) error {
	t.Helper()
	select {
	case err := <-out:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the waiting call never ended")
		return nil
	}
}

func TestACallForAStartingProviderRunsOnceItIsReady(t *testing.T) {
	for _, tc := range []struct {
		name  string
		known bool // the provider listed its tools before (a restart), or not (the first start)
	}{{"first start", false}, {"restart", true}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake("munim", "computer")
			r := started(t, nil, f)
			if tc.known {
				f.set(Status{State: StateReady}, []Tool{clickTool})
				f.set(Status{State: StateDown, Err: "exited (exit status 3)"}, nil)
				f.set(Status{State: StateStarting, Err: "exited (exit status 3)"}, nil)
			}
			out := pending(t, r, context.Background(), Call{Capability: "computer.click", Arguments: json.RawMessage(`{"x":1,"y":2}`)})
			f.set(Status{State: StateReady}, []Tool{clickTool})
			if err := ended(t, out); err != nil {
				t.Fatalf("call after the start: %v", err)
			}
			if got := f.lastCall(); got.Tool != "click" {
				t.Errorf("provider called with %+v", got)
			}
		})
	}
}

func TestACallForAStartingProviderIsValidatedOnceItIsReady(t *testing.T) {
	f := newFake("munim", "computer")
	r := started(t, nil, f)
	out := pending(t, r, context.Background(), Call{Capability: "computer.click", Arguments: json.RawMessage(`{"x":-1}`)})
	f.set(Status{State: StateReady}, []Tool{clickTool})
	if got := wire.CodeOf(ended(t, out)); got != wire.CodeInvalidArguments {
		t.Errorf("code = %q, want INVALID_ARGUMENTS", got)
	}
	if n := f.callCount(); n != 0 {
		t.Errorf("provider called %d times with invalid arguments", n)
	}
}

func TestACallForAProviderWhoseStartFailsGetsItsReason(t *testing.T) {
	f := newFake("munim", "computer")
	r := started(t, nil, f)
	out := pending(t, r, context.Background(), Call{Capability: "computer.click"})
	f.set(Status{State: StateDown, Err: "did not answer initialize within 1s (startTimeout)"}, nil)
	err := ended(t, out)
	if wire.CodeOf(err) != wire.CodeProviderUnavailable || !strings.Contains(err.Error(), "did not answer initialize within 1s") {
		t.Errorf("got %v; want PROVIDER_UNAVAILABLE with the provider's reason", err)
	}
}

func TestACallWaitsNoLongerThanTheStartDeadline(t *testing.T) {
	f := &deadlined{fakeProvider: newFake("munim", "computer"), deadline: time.Now()}
	r := New(WithPolicy(allowAll), WithProvider(f))
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	err := ended(t, pending(t, r, context.Background(), Call{Capability: "computer.click"}))
	if wire.CodeOf(err) != wire.CodeProviderUnavailable || !strings.Contains(err.Error(), "still starting after its start timeout") {
		t.Errorf("got %v; want PROVIDER_UNAVAILABLE saying the start took too long", err)
	}
}

func TestACallWaitingForAStartingProviderCanBeCancelled(t *testing.T) {
	f := newFake("munim", "computer")
	r := started(t, nil, f)
	ctx, cancel := context.WithCancel(context.Background())
	out := pending(t, r, ctx, Call{Capability: "computer.click"})
	cancel()
	if got := wire.CodeOf(ended(t, out)); got != wire.CodeCancelled {
		t.Errorf("code = %q, want CANCELLED", got)
	}
	f.set(Status{State: StateReady}, []Tool{clickTool})
	if n := f.callCount(); n != 0 {
		t.Errorf("a cancelled call reached the provider %d times", n)
	}
}

// Package method declares, once, the shape of a protocol method served by a
// part of the host (grants, providers, workspace, relay), so those parts do
// not depend on the native-messaging session that serves them: the session
// adapts a Table (session.WithMethods).
package method

import (
	"context"
	"encoding/json"
)

// Func handles one request: it gets the request's id and params (JSON text)
// and a way to push events while it runs, and returns the fields merged into
// the success reply, or an error the session turns into the error reply.
type Func func(ctx context.Context, id, params json.RawMessage, emit func(event any) error) (any, error)

// Table maps method names ("policy.get") to their handlers.
type Table map[string]Func

package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gnosis/gnosis/host/redact"
	"github.com/gnosis/gnosis/runtime"
	"github.com/gnosis/gnosis/runtime/rawjson"
	"github.com/gnosis/gnosis/runtime/wire"
)

// Service is the service name health reports.
const Service = "Agent Capability Runtime"

// Protocol is the number of the wire protocol this host speaks, reported by
// health beside the version so the extension can tell whether it fits. It
// goes up by one whenever the extension must know of a change: a method it
// needs that older hosts lack, or a request, reply or event whose shape
// changed. Optional fields and methods the extension can do without leave it
// alone. A host that reports none speaks protocol 1 (docs/protocol.md,
// "Versions").
const Protocol = 2

// builtins returns the method table of docs/protocol.md bound to rt.
func builtins(rt Runtime, s *Session) map[string]handler {
	return map[string]handler{
		"health":                {quick: true, run: func(context.Context, *Call) (any, error) { return health(rt, s.version, s.callTimeout, s.secrets), nil }},
		"capabilities.list":     {quick: true, run: func(context.Context, *Call) (any, error) { return listResult{rt.List()}, nil }},
		"capabilities.describe": {quick: true, run: func(_ context.Context, c *Call) (any, error) { return describe(rt, c) }},
		"cancel":                {quick: true, run: func(_ context.Context, c *Call) (any, error) { return cancel(s, c) }},
		"execute": {start: func(ctx context.Context, c *Call, reply func(any, error)) {
			execute(ctx, rt, s.approver, c, reply)
		}},
	}
}

type providerJSON struct {
	Name         string        `json:"name"`
	Prefix       string        `json:"prefix"`
	State        runtime.State `json:"state"`
	Capabilities int           `json:"capabilities"`
	Error        string        `json:"error,omitempty"`
	Stderr       string        `json:"stderr,omitempty"`
	// Skipped: the tools the server listed that are not capabilities, and why.
	Skipped []runtime.SkippedTool `json:"skipped,omitempty"`
}

// toProviderJSON is a provider's state as health and provider.state report
// it: its error (which quotes the stderr line that says what failed) and its
// stderr, both masked (secrets.Redact): a server's stderr is free text that
// may quote a password or a cookie.
func toProviderJSON(p runtime.ProviderHealth, secrets *redact.Set) providerJSON {
	return providerJSON{Name: p.Name, Prefix: p.Prefix, State: p.State, Capabilities: p.Capabilities,
		Error: secrets.Redact(p.Error), Stderr: secrets.Redact(p.Stderr), Skipped: p.Skipped}
}

type healthResult struct {
	Status       string         `json:"status"`
	Service      string         `json:"service"`
	Version      string         `json:"version"`
	Protocol     int            `json:"protocol"`
	Capabilities int            `json:"capabilities"`
	Providers    []providerJSON `json:"providers"`
	Error        string         `json:"error,omitempty"`
	// CallTimeoutMs is the host's per-call limit (WithCallTimeout), absent
	// when the session was not told it.
	CallTimeoutMs int64 `json:"callTimeoutMs,omitempty"`
}

func health(rt Runtime, version string, callTimeout func() time.Duration, secrets *redact.Set) healthResult {
	h := rt.Health()
	out := healthResult{
		Status: h.Status, Service: Service, Version: version, Protocol: Protocol,
		Capabilities: h.Capabilities, Providers: []providerJSON{}, Error: h.Error,
	}
	if callTimeout != nil {
		out.CallTimeoutMs = callTimeout().Milliseconds()
	}
	for _, p := range h.Providers {
		out.Providers = append(out.Providers, toProviderJSON(p, secrets))
	}
	return out
}

type listResult struct {
	Capabilities []runtime.Summary `json:"capabilities"`
}

// stringParam decodes params[name] as a required string, else INVALID_REQUEST.
func stringParam(params json.RawMessage, name string) (string, error) {
	var fields map[string]json.RawMessage
	var v string
	if json.Unmarshal(params, &fields) != nil || fields[name] == nil || json.Unmarshal(fields[name], &v) != nil {
		return "", wire.Errorf(wire.CodeInvalidRequest, "params.%s must be a string", name)
	}
	return v, nil
}

func describe(rt Runtime, c *Call) (any, error) {
	name, err := stringParam(c.Params, "name")
	if err != nil {
		return nil, err
	}
	capability, err := rt.Describe(name)
	if err != nil {
		return nil, err
	}
	// Built by hand so inputSchema goes out byte for byte as the provider
	// sent it: encoding/json would compact it and may escape characters.
	n, err := marshal(capability.Name)
	if err != nil {
		return nil, err
	}
	d, err := marshal(capability.Description)
	if err != nil {
		return nil, err
	}
	schema := capability.InputSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	out := make([]byte, 0, len(n)+len(d)+len(schema)+48)
	out = append(out, `{"name":`...)
	out = append(out, n...)
	out = append(out, `,"description":`...)
	out = append(out, d...)
	out = append(out, `,"inputSchema":`...)
	out = append(out, schema...)
	if capability.Title != "" {
		t, err := marshal(capability.Title)
		if err != nil {
			return nil, err
		}
		out = append(append(out, `,"title":`...), t...)
	}
	if len(capability.Annotations) > 0 {
		out = append(append(out, `,"annotations":`...), capability.Annotations...)
	}
	if capability.Unavailable != "" {
		u, err := marshal(capability.Unavailable)
		if err != nil {
			return nil, err
		}
		out = append(append(out, `,"unavailable":`...), u...)
	}
	if capability.Checks != nil {
		c, err := marshal(capability.Checks)
		if err != nil {
			return nil, err
		}
		out = append(append(out, `,"checks":`...), c...)
	}
	if len(capability.Tool) > 0 {
		out = append(append(out, `,"tool":`...), capability.Tool...)
	}
	return json.RawMessage(append(out, '}')), nil
}

type executeParams struct {
	Capability *string
	Arguments  json.RawMessage
	Origin     *string
}

// decodeExecute reads execute's params (an object, as DecodeRequest
// checked): the capability and origin decoded, the arguments left as the
// very bytes of the request (they may be tens of megabytes: no copy).
func decodeExecute(params json.RawMessage) (executeParams, error) {
	var p executeParams
	var err error
	rawjson.Object(params, func(key, val []byte) {
		k, _ := rawjson.Key(key)
		str := func(dst **string) {
			if bytes.Equal(val, []byte("null")) {
				*dst = nil
				return
			}
			var v string
			if e := json.Unmarshal(val, &v); e != nil {
				err = fmt.Errorf("params.%s must be a string", k)
				return
			}
			*dst = &v
		}
		switch k {
		case "capability":
			str(&p.Capability)
		case "origin":
			str(&p.Origin)
		case "arguments":
			p.Arguments = val[:len(val):len(val)]
		}
	})
	return p, err
}

// execute starts the call and replies when it ends. Its reply is built by
// hand: result can be many megabytes of provider JSON, and re-encoding it
// would cost as much as the chunking that follows.
func execute(ctx context.Context, rt Runtime, approver Approver, c *Call, reply func(any, error)) {
	p, err := decodeExecute(c.Params)
	if err != nil {
		reply(nil, wire.Errorf(wire.CodeInvalidRequest, "params of execute: %v", err))
		return
	}
	if p.Capability == nil {
		reply(nil, wire.Errorf(wire.CodeInvalidRequest, "params.capability must be a string"))
		return
	}
	origin := ""
	if p.Origin != nil {
		origin = *p.Origin
	}
	call := runtime.Call{Capability: *p.Capability, Arguments: p.Arguments, Origin: origin, ID: string(c.ID)}
	if approver != nil {
		call.Approve = func(ctx context.Context, a runtime.Approval) error { return approver(ctx, c, a) }
	}
	var progress *coalescer
	if c.Emit != nil {
		// The provider's progress reports become this request's events,
		// coalesced; the last one is written before the reply.
		progress = newCoalescer(func(p runtime.Progress) { _ = c.Emit(newProgressEvent(p)) }, ProgressInterval, time.After)
		ctx = runtime.WithProgress(ctx, progress.offer)
	}
	rt.ExecuteAsync(ctx, call, func(result json.RawMessage, err error) {
		if progress != nil {
			progress.close()
		}
		if err != nil {
			reply(nil, cancelledIfStopped(ctx, err))
			return
		}
		reply(executeResult(*p.Capability, result))
	})
}

// cancelledIfStopped is a failed call's error as its caller hears it: a
// call whose context was cancelled (its cancel, or the host shutting down
// when its input closed) is CANCELLED, whatever failed first on the way
// out; the shutdown stops providers while calls end, and "provider is down"
// would blame the server for the host's own stop.
func cancelledIfStopped(ctx context.Context, err error) error {
	if !errors.Is(ctx.Err(), context.Canceled) {
		return err
	}
	var e *wire.Error
	if errors.As(err, &e) && e.Code == wire.CodeCancelled {
		return err
	}
	return &wire.Error{Code: wire.CodeCancelled, Message: "the call was cancelled", Err: err}
}

// executeResult is execute's payload: {"capability", "result"}, as fields
// the reply copies the result into once.
func executeResult(capability string, result json.RawMessage) (any, error) {
	name, err := marshal(capability)
	if err != nil {
		return nil, err
	}
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	return fields{capabilityKey, name, resultKey, result}, nil
}

// The keys of execute's payload, as fields pieces.
var (
	capabilityKey = []byte(`"capability":`)
	resultKey     = []byte(`,"result":`)
)

type cancelResult struct {
	Found bool `json:"found"`
}

func cancel(s *Session, c *Call) (any, error) {
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(c.Params, &fields)
	id, err := decodeID(fields["id"])
	if err != nil {
		return nil, wire.Errorf(wire.CodeInvalidRequest, "params.id must be the string or number id of a request")
	}
	return cancelResult{Found: s.cancel(idKey(id))}, nil
}

// Event payloads.
type capabilitiesChanged struct {
	Event        string `json:"event"`
	Capabilities int    `json:"capabilities"`
}

type providerState struct {
	Event string `json:"event"`
	providerJSON
}

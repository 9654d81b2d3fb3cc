package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/runtime/schema"
	"github.com/gnosis/gnosis/runtime/wire"
)

// Execute runs one capability and returns its result: for provider
// capabilities the provider's raw result (the MCP CallToolResult), for the
// meta-capabilities the payload of the method of the same name.
//
// Every error is a *wire.Error. The checks run in the order of docs/protocol.md:
//
//  1. the capability is known, else CAPABILITY_NOT_FOUND. A name
//     "<prefix>.<tool>" that is not registered is still let through to the
//     next checks when its prefix belongs to no provider (it then fails with
//     PROVIDER_NOT_FOUND: "no provider registered for the capability") or to
//     a provider that has not listed its tools yet (PROVIDER_UNAVAILABLE: it
//     may well have that tool once it is up);
//  2. the origin's policy does not deny it, else FORBIDDEN with details
//     {"reason": "not-granted"} (meta-capabilities are always allowed);
//  3. its provider exists (PROVIDER_NOT_FOUND) and is ready
//     (PROVIDER_UNAVAILABLE; a provider that is starting is waited for, up
//     to its start deadline, and the checks run again once it is ready);
//     the tool can be called at all, else
//     EXECUTION_ERROR with details {"reason": "task-required"} (a tool that
//     requires MCP task augmentation) or {"reason": "invalid-schema"} (its
//     inputSchema or outputSchema cannot be used);
//  4. the arguments are a JSON object and satisfy the input schema, else
//     INVALID_ARGUMENTS with details {"errors": [{"path", "keyword", "message"}]}. A
//     non-object is an argument problem, not a request-shape problem, so it
//     is INVALID_ARGUMENTS too (path ""). The schemas are compiled after
//     discovery or at the first call, whichever comes first; one that does
//     not compile, or cannot be evaluated, refuses the call with
//     {"reason": "invalid-schema"}: no call runs unchecked;
//  5. when the policy says ask, the user approves it through c.Approve,
//     else FORBIDDEN ({"reason": "denied"} or "timeout"), or CANCELLED;
//  6. the call: TIMEOUT, CANCELLED (also once Close has begun),
//     PROVIDER_UNAVAILABLE or EXECUTION_ERROR;
//     a result with "isError": true is EXECUTION_ERROR with the whole result
//     as Details (a json.RawMessage);
//  7. a tool that declares an outputSchema must return structuredContent
//     that matches it, else EXECUTION_ERROR with OutputMismatch details.
func (r *Runtime) Execute(ctx context.Context, c Call) (json.RawMessage, error) {
	return Await(func(done func(json.RawMessage, error)) { r.ExecuteAsync(ctx, c, done) })
}

// ExecuteAsync is Execute without the wait: it runs the checks of steps 1
// to 3, and step 4 (the arguments decoded and validated) where it cannot
// hold the caller (the host's request reader): on this goroutine only when
// it is sure to be quick (arguments of at most inlineArgs bytes, a schema
// already compiled, a verdict within inlineSteps steps, which is every
// everyday tool call: no goroutine is woken for it), and otherwise on a
// goroutine of its own, so that however long a hostile schema or value
// makes it (up to its budget), the caller goes on at once. The verdict is
// the same either way: a validation that runs past inlineSteps here is
// started again, whole, with its full budget, there. done receives what
// Execute returns, exactly once: on this goroutine when a check fails
// here; otherwise from the goroutine that checked the arguments, or the
// one that ends the call (for an MCP provider, the one reading the
// server's messages), so done must not block for long. A call that needs
// the user's approval waits for it on a goroutine of its own, and so does
// a call whose provider is starting (startwait.go). A result checked
// against an outputSchema is checked on a goroutine of its own too, never
// on the provider's reader.
func (r *Runtime) ExecuteAsync(ctx context.Context, c Call, done func(json.RawMessage, error)) {
	start := time.Now()
	o := &outcome{log: r.log, done: func(result json.RawMessage, err error) {
		r.logExecute(c, start, len(result), err)
		done(result, err)
	}}
	defer o.recover()
	e, p, decision, err := r.admit(c)
	if sp := starting(err); sp != nil {
		// Waiting holds a goroutine: only while a provider starts.
		go func() {
			defer o.recover()
			if err := r.awaitStart(ctx, sp); err != nil {
				o.finish(nil, err)
				return
			}
			e, p, decision, err := r.admit(c)
			if err != nil {
				o.finish(nil, unstarted(err))
				return
			}
			r.run(ctx, c, e, p, decision, o)
		}()
		return
	}
	if err != nil {
		o.finish(nil, err)
		return
	}
	if len(c.Arguments) <= inlineArgs && e.input.compiled() && (e.output == nil || e.output.compiled()) {
		if args, err := r.checkArguments(ctx, e, c.Arguments, inlineSteps); !errors.Is(err, errTooLongHere) {
			r.proceed(ctx, c, e, p, decision, o, args, err)
			return
		}
	}
	go func() {
		defer o.recover()
		r.run(ctx, c, e, p, decision, o)
	}()
}

// A call's arguments are checked on the goroutine that starts it when
// they are at most inlineArgs bytes and their verdict takes at most
// inlineSteps steps: tens of microseconds at most, less than waking a
// goroutine costs. A typical tool schema takes a few dozen.
const (
	inlineArgs  = 4 << 10
	inlineSteps = 2048
)

// errTooLongHere is a validation that needs more than the steps it was
// allowed where it started: it must run again, elsewhere, in full.
var errTooLongHere = errors.New("validation needs more steps than it may take here")

// run is ExecuteAsync once the capability and its provider are admitted:
// the arguments, the approval if asked, the call.
func (r *Runtime) run(ctx context.Context, c Call, e *entry, p Provider, decision Decision, o *outcome) {
	args, err := r.checkArguments(ctx, e, c.Arguments, 0)
	r.proceed(ctx, c, e, p, decision, o, args, err)
}

// proceed goes on once the arguments are checked: the approval if asked,
// the call.
func (r *Runtime) proceed(ctx context.Context, c Call, e *entry, p Provider, decision Decision, o *outcome, args json.RawMessage, err error) {
	if err != nil {
		o.finish(nil, err)
		return
	}
	if p == nil {
		o.finish(r.executeMeta(e.cap.Name, args))
		return
	}
	if decision == Ask {
		go func() {
			defer o.recover()
			if err := r.approve(ctx, c, e, args); err != nil {
				o.finish(nil, err)
				return
			}
			r.call(ctx, c, e, p, args, o)
		}()
		return
	}
	r.call(ctx, c, e, p, args, o)
}

// outcome delivers an execute's result to its caller once, and turns a
// panic on the way (a validator's, on a hostile schema) into an error: it
// runs on goroutines such as a provider's reader, where a panic would take
// the host down.
type outcome struct {
	log    zerolog.Logger
	done   func(json.RawMessage, error)
	called atomic.Bool
}

func (o *outcome) finish(result json.RawMessage, err error) {
	if o.called.CompareAndSwap(false, true) {
		o.done(result, err)
	}
}

// recover must be deferred directly.
func (o *outcome) recover() {
	v := recover()
	if v == nil {
		return
	}
	if o.called.Load() {
		o.log.Error().Interface("panic", v).Msg("panic after an execute was answered")
		return
	}
	o.finish(nil, &wire.Error{Code: wire.CodeExecutionError, Message: fmt.Sprintf("internal error: %v", v)})
}

// admit runs steps 1 to 3: it finds c's capability and its provider (nil
// for a meta-capability) and the policy's decision.
func (r *Runtime) admit(c Call) (*entry, Provider, Decision, error) {
	reg := r.reg.Load()
	e := reg.byName[c.Capability]
	var p Provider
	if e == nil {
		prefix, _, hasDot := strings.Cut(c.Capability, ".")
		if hasDot {
			p = r.providerWithPrefix(prefix)
		}
		if !hasDot || prefix == metaPrefix || (p != nil && r.discovered(p)) {
			return nil, nil, Deny, wire.Errorf(wire.CodeCapabilityNotFound, "no capability named %q", c.Capability)
		}
	}
	decision := Allow
	if e == nil || e.cap.Provider != "" {
		decision = r.policy.Load().Decide(c.Origin, c.Capability)
		if decision == Deny {
			return nil, nil, Deny, notGranted(c)
		}
	}
	if e == nil {
		if p == nil {
			return nil, nil, Deny, wire.Errorf(wire.CodeProviderNotFound, "no provider registered for capability %q", c.Capability)
		}
		return nil, nil, Deny, notReady(p)
	}
	if e.cap.Provider == "" {
		return e, nil, decision, nil
	}
	p = r.providerNamed(e.cap.Provider)
	if p == nil {
		return nil, nil, Deny, wire.Errorf(wire.CodeProviderNotFound, "provider %q of capability %q is not registered", e.cap.Provider, c.Capability)
	}
	if p.Status().State != StateReady {
		return nil, nil, Deny, notReady(p)
	}
	if why := e.unavailable; why != "" {
		return nil, nil, Deny, &wire.Error{Code: wire.CodeExecutionError, Message: c.Capability + " is unavailable: " + why,
			Details: map[string]string{"reason": e.reason}}
	}
	return e, p, decision, nil
}

// call runs steps 6 and 7: the provider's call, then the checks of its
// result, which run where the call ends.
func (r *Runtime) call(ctx context.Context, c Call, e *entry, p Provider, args json.RawMessage, o *outcome) {
	if r.closed.Load() {
		o.finish(nil, wire.Errorf(wire.CodeCancelled, "the runtime is shutting down"))
		return
	}
	ended := func(result json.RawMessage, err error) {
		defer o.recover()
		if err == nil && e.output != nil {
			// Validation may take long: not on the goroutine that reads
			// the provider's other replies.
			go func() {
				defer o.recover()
				o.finish(r.checkResult(ctx, c, e, result, nil))
			}()
			return
		}
		o.finish(r.checkResult(ctx, c, e, result, err))
	}
	if a, ok := p.(AsyncCaller); ok {
		a.CallAsync(ctx, e.tool, args, ended)
		return
	}
	go func() { ended(p.Call(ctx, e.tool, args)) }()
}

// checkResult turns a provider's outcome into Execute's: its error given a
// protocol code, a tool error (isError) or a result that does not match the
// tool's outputSchema made an EXECUTION_ERROR.
func (r *Runtime) checkResult(ctx context.Context, c Call, e *entry, result json.RawMessage, err error) (json.RawMessage, error) {
	if err != nil {
		return nil, callError(ctx, err)
	}
	if e.output != nil {
		// One decode of the result serves the isError check and the
		// outputSchema check.
		return r.checkOutput(ctx, c, e, result)
	}
	if isToolError(result) {
		return nil, toolError(c.Capability, result)
	}
	return result, nil
}

func (r *Runtime) discovered(p Provider) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.state[p.Name()]
	return st != nil && st.discovered
}

func unavailable(p Provider) *wire.Error {
	st := p.Status()
	msg := fmt.Sprintf("provider %q is %s", p.Name(), st.State)
	if st.Err != "" {
		msg += ": " + st.Err
	}
	details := map[string]string{"provider": p.Name(), "state": string(st.State)}
	if stderr := stderrOf(p); stderr != "" {
		details["stderr"] = stderr
	}
	return &wire.Error{Code: wire.CodeProviderUnavailable, Message: msg, Details: details}
}

// checkArguments defaults nil arguments to {} and validates them, with the
// budget of their size; ctx's end stops the validation. With within > 0
// it takes at most that many steps, and fails with errTooLongHere when
// the verdict needs more (the budget's own end is then unknown).
func (r *Runtime) checkArguments(ctx context.Context, e *entry, raw json.RawMessage, within int64) (json.RawMessage, error) {
	args := bytes.TrimSpace(raw)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	// Decoded once, for the object check and for validation; numbers
	// keep their literal text (1e309 and 2^64 are numbers like any other).
	doc, decodeErr := schema.Decode(args)
	var deep *schema.DepthError
	if errors.As(decodeErr, &deep) {
		msg := fmt.Sprintf("arguments are %v: the host checks no deeper", deep)
		return nil, &wire.Error{Code: wire.CodeInvalidArguments, Message: msg,
			Details: violationDetails([]Violation{{Path: "", Keyword: "", Message: msg}})}
	}
	if _, isObject := doc.(map[string]any); decodeErr != nil || !isObject {
		return nil, &wire.Error{
			Code:    wire.CodeInvalidArguments,
			Message: "arguments must be a JSON object",
			Details: violationDetails([]Violation{{Path: "", Keyword: "type", Message: "arguments must be a JSON object"}}),
		}
	}
	input, err := r.compile(e.input)
	if err != nil {
		return nil, schemaUnusable(e.cap.Name, e.input.kind, err, nil)
	}
	if e.output != nil {
		if _, err := r.compile(e.output); err != nil {
			return nil, schemaUnusable(e.cap.Name, e.output.kind, err, nil)
		}
	}
	steps := schema.StepsFor(len(args))
	if within > 0 && within < steps {
		steps = within
	}
	vs, err := input.Validate(doc, &schema.Budget{Steps: steps, Done: ctx.Done()})
	if err != nil {
		if within > 0 && errors.Is(err, schema.ErrTooCostly) {
			return nil, errTooLongHere
		}
		return nil, validationFailed(ctx, e.cap.Name, e.input.kind, len(args), err, nil)
	}
	if len(vs) > 0 {
		return nil, &wire.Error{
			Code:    wire.CodeInvalidArguments,
			Message: fmt.Sprintf("arguments do not match the input schema of %q: %s", e.cap.Name, summarise(vs)),
			Details: violationDetails(vs),
		}
	}
	return args, nil
}

// CostDetails is the Details of a TOO_COSTLY error.
type CostDetails struct {
	// Reason is always "validation-budget".
	Reason string `json:"reason"`
	// Steps is the budget the value was given (schema.StepsFor its size).
	Steps int64 `json:"steps"`
	// Path, Keyword and KeywordLocation are where the validation stopped.
	Path            string `json:"path"`
	Keyword         string `json:"keyword"`
	KeywordLocation string `json:"keywordLocation"`
	// Result is the tool's result, for a result checked against its
	// outputSchema.
	Result json.RawMessage `json:"result,omitempty"`
}

// validationFailed is the error of a validation that did not end with a
// verdict: TOO_COSTLY past its budget, the call's own end (CANCELLED or
// TIMEOUT) when ctx ended it, EXECUTION_ERROR (invalid-schema) for a
// schema that could not be evaluated. what is "arguments" or "result";
// size the bytes of the value.
func validationFailed(ctx context.Context, capability, kind string, size int, err error, result json.RawMessage) error {
	var ce *schema.CostError
	switch {
	case errors.As(err, &ce):
		what := "its arguments against its " + kind
		if result != nil {
			what = "its result against its " + kind
		}
		return &wire.Error{Code: wire.CodeTooCostly,
			Message: fmt.Sprintf("%s: checking %s costs more than the host gives a value of %d bytes: %v; the call was refused rather than let it hold the host (an exponential schema or pattern, or a value that makes one so)", capability, what, size, ce),
			Details: CostDetails{Reason: "validation-budget", Steps: ce.Budget, Path: ce.Path, Keyword: ce.Keyword, KeywordLocation: ce.KeywordLocation, Result: result}}
	case errors.Is(err, schema.ErrStopped):
		return callError(ctx, cmpErr(ctx.Err(), err))
	}
	return schemaUnusable(capability, kind, fmt.Errorf("cannot be evaluated: %w", err), result)
}

// cmpErr is the first of errs that is not nil.
func cmpErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// ValidationDetails is the Details of an INVALID_ARGUMENTS error.
type ValidationDetails struct {
	Errors []Violation `json:"errors"`
}

func violationDetails(vs []Violation) ValidationDetails { return ValidationDetails{Errors: vs} }

func summarise(vs []Violation) string {
	v := vs[0]
	s := v.Message
	if v.Path != "" {
		s = v.Path + ": " + s
	}
	more := len(vs) - 1
	if n := schema.Unlisted(vs); n > 0 {
		more += n - 1 // the last one only counts the others
	}
	if more > 0 {
		s += fmt.Sprintf(" (and %d more)", more)
	}
	return s
}

func (r *Runtime) executeMeta(name string, args json.RawMessage) (json.RawMessage, error) {
	switch name {
	case MetaList:
		return json.Marshal(struct {
			Capabilities []Summary `json:"capabilities"`
		}{r.List()})
	case MetaDescribe:
		var a struct {
			Name *string `json:"name"`
		}
		if err := json.Unmarshal(args, &a); err != nil || a.Name == nil {
			return nil, &wire.Error{Code: wire.CodeInvalidArguments, Message: `"name" must be a string`,
				Details: violationDetails([]Violation{{Path: "/name", Keyword: "type", Message: "must be a string"}})}
		}
		capability, err := r.Describe(*a.Name)
		if err != nil {
			return nil, err
		}
		return json.Marshal(DescribeResult(capability))
	}
	return nil, wire.Errorf(wire.CodeCapabilityNotFound, "no capability named %q", name)
}

// Description is the payload of capabilities.describe: the capability and,
// for a provider's tool, its title, hints and whole tool object as sent.
type Description struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Title       string          `json:"title,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	// Checks says what the host checks of the arguments (Capability.Checks).
	Checks *Checks         `json:"checks,omitempty"`
	Tool   json.RawMessage `json:"tool,omitempty"`
}

// DescribeResult turns a Capability into the capabilities.describe payload.
func DescribeResult(c Capability) Description {
	return Description{Name: c.Name, Description: c.Description, InputSchema: c.InputSchema,
		Title: c.Title, Annotations: c.Annotations, Checks: c.Checks, Tool: c.Tool}
}

// callError gives a provider's error its protocol code, once.
func callError(ctx context.Context, err error) error {
	var e *wire.Error
	if errors.As(err, &e) {
		return err
	}
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled):
		return &wire.Error{Code: wire.CodeCancelled, Message: "the call was cancelled", Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &wire.Error{Code: wire.CodeTimeout, Message: "the call timed out", Err: err}
	case errors.Is(err, context.Canceled):
		return &wire.Error{Code: wire.CodeCancelled, Message: "the call was cancelled", Err: err}
	}
	return &wire.Error{Code: wire.CodeExecutionError, Message: "the provider failed", Err: err}
}

func isToolError(result json.RawMessage) bool {
	// Inside a JSON string a quote is escaped, so the bytes "isError" with
	// their quotes only occur as a key (or an exact string value). Checking
	// for them first keeps multi-megabyte results from a full decode.
	if !bytes.Contains(result, []byte(`"isError"`)) {
		return false
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(result, &r) == nil && r.IsError
}

// toolError is the EXECUTION_ERROR of a result with "isError": true.
func toolError(capability string, result json.RawMessage) *wire.Error {
	return &wire.Error{Code: wire.CodeExecutionError, Message: toolErrorMessage(capability, result), Details: result}
}

// toolErrorMessage quotes the first text content of a failed tool result.
func toolErrorMessage(capability string, result json.RawMessage) string {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(result, &r)
	for _, c := range r.Content {
		if c.Type == "text" && c.Text != "" {
			return fmt.Sprintf("%s failed: %s", capability, truncate(c.Text, 300))
		}
	}
	return capability + " failed"
}

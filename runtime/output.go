package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/gnosis/gnosis/runtime/rawjson"
	"github.com/gnosis/gnosis/runtime/schema"
	"github.com/gnosis/gnosis/runtime/wire"
)

// OutputMismatch is the Details of the EXECUTION_ERROR for a result whose
// structuredContent does not match the tool's outputSchema (or is missing:
// MCP says a server MUST return structured content conforming to a declared
// output schema, and that clients SHOULD validate it).
type OutputMismatch struct {
	// Reason is always "output-schema".
	Reason string `json:"reason"`
	// Errors lists the violations, paths relative to structuredContent.
	Errors []Violation `json:"errors"`
	// Result is the tool's whole result, as sent.
	Result json.RawMessage `json:"result"`
}

// outputSchemaOf returns the tool's declared outputSchema, nil if none.
func outputSchemaOf(tool json.RawMessage) json.RawMessage {
	// Most tools declare none: skip decoding them.
	if !bytes.Contains(tool, []byte(`"outputSchema"`)) {
		return nil
	}
	var t struct {
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if json.Unmarshal(tool, &t) != nil {
		return nil
	}
	s := bytes.TrimSpace(t.OutputSchema)
	if len(s) == 0 || bytes.Equal(s, []byte("null")) {
		return nil
	}
	return s
}

// checkOutput checks the result of a tool that declares an outputSchema:
// an "isError" result is the tool's error; otherwise its structuredContent
// must match the schema, checked with the budget of the result's size. The
// result is split into its members without a copy, and only
// structuredContent is decoded.
func (r *Runtime) checkOutput(ctx context.Context, c Call, e *entry, result json.RawMessage) (json.RawMessage, error) {
	var isError, structured []byte
	if !rawjson.Object(result, func(key, val []byte) {
		switch k, _ := rawjson.Key(key); k {
		case "isError":
			isError = val
		case "structuredContent":
			structured = val
		}
	}) {
		return nil, &wire.Error{Code: wire.CodeExecutionError, Message: e.cap.Name + " returned a result that is not a JSON object"}
	}
	if bytes.Equal(isError, []byte("true")) {
		return nil, toolError(c.Capability, result)
	}
	var vs []Violation
	if structured == nil || bytes.Equal(structured, []byte("null")) {
		vs = []Violation{{Path: "", Keyword: "required", Message: "structuredContent is missing, but the tool declares an outputSchema"}}
	} else {
		s, err := r.compile(e.output)
		if err != nil {
			return nil, schemaUnusable(e.cap.Name, e.output.kind, err, result)
		}
		v, err := schema.Decode(structured)
		if err != nil {
			return nil, &wire.Error{Code: wire.CodeExecutionError, Message: fmt.Sprintf("%s returned structuredContent that cannot be checked: %v", e.cap.Name, err)}
		}
		if vs, err = s.Validate(v, &schema.Budget{Steps: schema.StepsFor(len(structured)), Done: ctx.Done()}); err != nil {
			return nil, validationFailed(ctx, e.cap.Name, e.output.kind, len(structured), err, result)
		}
	}
	if len(vs) == 0 {
		return result, nil
	}
	return nil, &wire.Error{
		Code:    wire.CodeExecutionError,
		Message: fmt.Sprintf("%s returned structuredContent that does not match its outputSchema: %s", e.cap.Name, summarise(vs)),
		Details: OutputMismatch{Reason: "output-schema", Errors: vs, Result: result},
	}
}

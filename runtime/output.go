package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

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

// checkOutput validates a successful result's structuredContent against the
// capability's outputSchema. A schema that does not compile or cannot be
// evaluated is not enforced (logged), as for input schemas.
func (r *Runtime) checkOutput(e *entry, result json.RawMessage) error {
	schema := outputSchemaOf(e.cap.Tool)
	if schema == nil {
		return nil
	}
	var res struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(result, &res); err != nil {
		return &wire.Error{Code: wire.CodeExecutionError, Message: e.cap.Name + " returned a result that is not a JSON object", Err: err}
	}
	content := bytes.TrimSpace(res.StructuredContent)
	var vs []Violation
	if len(content) == 0 || bytes.Equal(content, []byte("null")) {
		vs = []Violation{{Path: "", Keyword: "required", Message: "structuredContent is missing, but the tool declares an outputSchema"}}
	} else {
		s, err := r.validator.Compile(schema)
		if err != nil {
			r.log.Warn().Err(err).Str("capability", e.cap.Name).Msg("output schema does not compile; results will not be validated")
			return nil
		}
		vs, err = s.Validate(content)
		if err != nil {
			r.log.Warn().Err(err).Str("capability", e.cap.Name).Msg("output schema could not be evaluated; result not validated")
			return nil
		}
	}
	if len(vs) == 0 {
		return nil
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Path < vs[j].Path })
	return &wire.Error{
		Code:    wire.CodeExecutionError,
		Message: fmt.Sprintf("%s returned structuredContent that does not match its outputSchema: %s", e.cap.Name, summarise(vs)),
		Details: OutputMismatch{Reason: "output-schema", Errors: vs, Result: result},
	}
}

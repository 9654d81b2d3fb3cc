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

// checkOutput checks the result of a tool that declares an outputSchema:
// an "isError" result is the tool's error; otherwise its structuredContent
// must match the schema. The result is decoded once, for both, and the
// decoded structuredContent is validated as it is (valueValidator).
func (r *Runtime) checkOutput(c Call, e *entry, result json.RawMessage) (json.RawMessage, error) {
	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent any  `json:"structuredContent"`
	}
	// Numbers as json.Number, so that the outputSchema compares them
	// exactly.
	d := json.NewDecoder(bytes.NewReader(result))
	d.UseNumber()
	if err := d.Decode(&res); err != nil {
		return nil, &wire.Error{Code: wire.CodeExecutionError, Message: e.cap.Name + " returned a result that is not a JSON object", Err: err}
	}
	if res.IsError {
		return nil, toolError(c.Capability, result)
	}
	var vs []Violation
	if res.StructuredContent == nil {
		vs = []Violation{{Path: "", Keyword: "required", Message: "structuredContent is missing, but the tool declares an outputSchema"}}
	} else {
		s, err := r.compile(e.output)
		if err == nil {
			vs, err = validateValue(s, res.StructuredContent)
		}
		if err != nil {
			return nil, schemaUnusable(e.cap.Name, e.output.kind, err, result)
		}
	}
	if len(vs) == 0 {
		return result, nil
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Path < vs[j].Path })
	return nil, &wire.Error{
		Code:    wire.CodeExecutionError,
		Message: fmt.Sprintf("%s returned structuredContent that does not match its outputSchema: %s", e.cap.Name, summarise(vs)),
		Details: OutputMismatch{Reason: "output-schema", Errors: vs, Result: result},
	}
}

// valueValidator is a Schema that checks a value already decoded by
// encoding/json (into any), so that a caller that decoded it does not
// encode it or parse it again. runtime/schema's Schema is one; it expects
// numbers as json.Number (decoded with UseNumber), so that they stay exact.
type valueValidator interface {
	ValidateValue(v any) ([]Violation, error)
}

// validateValue checks v against s, re-encoding it only for a Schema that
// is not a valueValidator.
func validateValue(s Schema, v any) ([]Violation, error) {
	if vv, ok := s.(valueValidator); ok {
		return vv.ValidateValue(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return s.Validate(b)
}

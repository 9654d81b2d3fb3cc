package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/gnosis/gnosis/runtime/wire"
)

var nullID = json.RawMessage("null")

// marshal encodes v as JSON without HTML escaping: the reader is a JSON
// parser, and escaping "<" as \u003c would only make replies larger.
func marshal(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// successReply builds {"id":<id>,"ok":true,<fields of result>}. result must
// encode to a JSON object (nil means no extra fields).
func successReply(id json.RawMessage, result any) ([]byte, error) {
	return withID(id, `,"ok":true`, result)
}

// fields is an object's members as pieces of JSON text to be joined, "{"
// and "}" left out: a reply built from a large value (an execute's result)
// is copied once, into the reply itself.
type fields [][]byte

// withID builds {"id":<id><extra>,<fields of obj>}: the object obj encodes
// to, with "id" (and extra) put first.
func withID(id json.RawMessage, extra string, obj any) ([]byte, error) {
	if f, ok := obj.(fields); ok {
		n := len(id) + len(extra) + 10
		for _, p := range f {
			n += len(p)
		}
		out := make([]byte, 0, n)
		out = append(append(append(out, `{"id":`...), id...), extra...)
		if len(f) > 0 {
			out = append(out, ',')
		}
		for _, p := range f {
			out = append(out, p...)
		}
		return validUTF8(append(out, '}')), nil
	}
	fields := []byte("{}")
	if obj != nil {
		b, err := marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("encoding result: %w", err)
		}
		fields = bytes.TrimSpace(b)
	}
	if len(fields) < 2 || fields[0] != '{' || fields[len(fields)-1] != '}' {
		return nil, errors.New("result is not a JSON object")
	}
	inner := bytes.TrimSpace(fields[1 : len(fields)-1])
	out := make([]byte, 0, len(id)+len(extra)+len(inner)+10)
	out = append(out, `{"id":`...)
	out = append(out, id...)
	out = append(out, extra...)
	if len(inner) > 0 {
		out = append(out, ',')
		out = append(out, inner...)
	}
	return validUTF8(append(out, '}')), nil
}

// wireError is the failure reply.
type wireError struct {
	ID      json.RawMessage `json:"id"`
	OK      bool            `json:"ok"`
	Error   bool            `json:"error"`
	Code    wire.Code       `json:"code"`
	Message string          `json:"message"`
	Details any             `json:"details,omitempty"`
}

// errorReply turns any error into the protocol's failure reply. This is the
// one place where errors become wire replies: *wire.Error keeps its code,
// message and details; context errors become CANCELLED or TIMEOUT; anything
// else is EXECUTION_ERROR with the error's text.
func errorReply(id json.RawMessage, err error) []byte {
	if len(id) == 0 {
		id = nullID
	}
	w := wireError{ID: id, Error: true, Code: wire.CodeOf(err), Message: err.Error()}
	var re *wire.Error
	if errors.As(err, &re) {
		w.Message, w.Details = re.Message, re.Details
		if re.Message == "" {
			w.Message = err.Error()
		}
	}
	b, merr := marshal(w)
	if merr != nil {
		// Details that cannot be encoded must not lose the error itself.
		w.Details = nil
		w.Message += fmt.Sprintf(" (details could not be encoded: %v)", merr)
		b, _ = marshal(w)
	}
	return validUTF8(b)
}

// validUTF8 repairs invalid UTF-8 (which a sloppy provider can put in a
// string) with U+FFFD: Chrome rejects such a frame, and chunking cannot carry
// it. In valid JSON such bytes can only sit inside strings, so the result is
// still valid JSON.
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}

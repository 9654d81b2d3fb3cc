package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/gnosis/gnosis/host/framing"
	"github.com/gnosis/gnosis/runtime/rawjson"
	"github.com/gnosis/gnosis/runtime/wire"
)

// MaxIDLength bounds a request id's JSON text, so every reply's chunk
// header fits in a frame whatever the id.
const MaxIDLength = 256

// Request is a decoded request frame.
type Request struct {
	// ID is the id's JSON text (a string or a number), echoed in the reply.
	ID json.RawMessage
	// Method is the method name.
	Method string
	// Params is the params object's JSON text; "{}" when absent or null.
	Params json.RawMessage
}

var emptyObject = json.RawMessage("{}")

// DecodeRequest decodes a request frame's body. On failure it returns a
// *wire.Error with code INVALID_REQUEST, and the Request's ID is set when
// the id itself was valid, so the error can be answered to it (even in a
// body that is not UTF-8 or is nested too deep: unreadable); otherwise
// the reply's id is null.
func DecodeRequest(body []byte) (Request, error) {
	var req Request
	if !utf8.Valid(body) {
		return unreadable(body)
	}
	fields, ok := topLevel(body)
	if !ok {
		return unreadable(body)
	}
	id, err := decodeID(fields["id"])
	if err != nil {
		return req, err
	}
	req.ID = id
	var method string
	if raw, ok := fields["method"]; !ok || json.Unmarshal(raw, &method) != nil || method == "" {
		return req, invalid(`"method" must be a non-empty string`)
	}
	req.Method = method
	req.Params = emptyObject
	if p := fields["params"]; p != nil && !bytes.Equal(p, []byte("null")) {
		if p[0] != '{' {
			return req, invalid(`"params" must be an object`)
		}
		req.Params = p
	}
	return req, nil
}

// unreadable is the error of a request body that is not a JSON object the
// host can read: it says what is wrong (not UTF-8, nested too deep, not an
// object) and where, and it carries the caller's id when a scan of the body
// finds one (framing.RequestID), so the caller hears of it under its own
// id rather than null.
func unreadable(body []byte) (Request, error) {
	var req Request
	raw, damage := framing.RequestID(body, rawjson.MaxDepth)
	if id, err := decodeID(raw); err == nil && json.Valid(id) && utf8.Valid(id) {
		req.ID = id
	}
	switch {
	case damage.InvalidUTF8 >= 0:
		return req, invalid(fmt.Sprintf("request is not valid UTF-8 (byte %d is not)", damage.InvalidUTF8))
	case damage.TooDeep >= 0:
		return req, invalid(fmt.Sprintf("request is nested deeper than %d levels (at byte %d)", rawjson.MaxDepth, damage.TooDeep))
	}
	return req, invalid("request must be a JSON object")
}

// decodeID checks an id is a JSON string or number of bounded size.
func decodeID(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, invalid(`"id" is required`)
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
	default:
		return nil, invalid(`"id" must be a string or a number`)
	}
	if len(raw) > MaxIDLength {
		return nil, invalid(fmt.Sprintf(`"id" is longer than %d bytes`, MaxIDLength))
	}
	if raw[0] != '"' {
		// A number the extension's JSON.parse would turn into Infinity (1e1000)
		// could not be matched to its reply.
		if _, err := strconv.ParseFloat(string(raw), 64); err != nil {
			return nil, invalid(`"id" is a number out of range`)
		}
	}
	return raw, nil
}

// idKey is the in-flight table's key for an id: strings by value, numbers by
// their text (so "1" and 1 are different requests, and so are 1 and 1.0).
func idKey(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return "s" + s
		}
	}
	return "n" + string(raw)
}

func invalid(msg string) *wire.Error {
	return &wire.Error{Code: wire.CodeInvalidRequest, Message: msg}
}

// topLevel returns the members of the JSON object body as sub-slices of it
// (no copy: params can be tens of megabytes), the last one winning for a
// repeated key, as encoding/json does; ok is false when body is not exactly
// one valid JSON object.
func topLevel(body []byte) (fields map[string]json.RawMessage, ok bool) {
	fields = make(map[string]json.RawMessage, 3)
	keysOK := true
	ok = rawjson.Object(body, func(key, val []byte) {
		name, kok := rawjson.Key(key)
		keysOK = keysOK && kok
		fields[name] = val[:len(val):len(val)]
	})
	return fields, ok && keysOK
}

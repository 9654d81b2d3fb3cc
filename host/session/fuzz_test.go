package session

import (
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gnosis/gnosis/runtime/wire"
)

// FuzzDecodeRequest feeds arbitrary frame bodies to the request decoder. It
// must never panic; an accepted request has a string or number id of bounded
// size, a method, and object params; a rejected one is INVALID_REQUEST; and
// either way the reply built from it is valid JSON.
func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(`{"id":1,"method":"health"}`))
	f.Add([]byte(`{"id":"a","method":"execute","params":{"capability":"computer.click","arguments":{"x":1}}}`))
	f.Add([]byte(`{"id":null,"method":"health"}`))
	f.Add([]byte(`{"id":1,"method":"health","params":[]}`))
	f.Add([]byte(`{"id":1}`))
	f.Add([]byte("{\"id\":\"\xff\",\"method\":\"x\"}"))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := DecodeRequest(body)
		// Differential: the hand scanner must see exactly what encoding/json sees.
		if json.Valid(body) && utf8.Valid(body) {
			var want map[string]json.RawMessage
			werr := json.Unmarshal(body, &want)
			got, ok := topLevel(body)
			if (werr == nil && want != nil) != ok {
				t.Fatalf("topLevel ok = %v, encoding/json err %v map %v", ok, werr, want)
			}
			if ok && !cmp.Equal(want, got, cmpopts.EquateEmpty()) {
				t.Fatalf("topLevel = %q, encoding/json = %q", got, want)
			}
		}
		if err != nil {
			var re *wire.Error
			if !errors.As(err, &re) || re.Code != wire.CodeInvalidRequest {
				t.Fatalf("error %v is not INVALID_REQUEST", err)
			}
		} else {
			if req.Method == "" {
				t.Fatal("accepted a request without a method")
			}
			var params map[string]json.RawMessage
			if json.Unmarshal(req.Params, &params) != nil || params == nil {
				t.Fatalf("params %q is not an object", req.Params)
			}
		}
		if req.ID != nil {
			var v any
			if json.Unmarshal(req.ID, &v) != nil {
				t.Fatalf("id %q is not JSON", req.ID)
			}
			switch v.(type) {
			case string, float64:
			default:
				t.Fatalf("id %q is neither a string nor a number", req.ID)
			}
			if len(req.ID) > MaxIDLength {
				t.Fatalf("id of %d bytes accepted", len(req.ID))
			}
		}
		var reply []byte
		if err != nil {
			reply = errorReply(req.ID, err)
		} else {
			reply, err = successReply(req.ID, map[string]string{"method": req.Method})
			if err != nil {
				t.Fatal(err)
			}
		}
		if !json.Valid(reply) || !utf8.Valid(reply) {
			t.Fatalf("reply is not valid UTF-8 JSON: %q", reply)
		}
	})
}

package mcpprovider

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScanEnvelopeFindsTheRoutingMembers(t *testing.T) {
	tests := []struct {
		name string
		line string
		want map[string]string
		ok   bool
	}{
		{"response", `{"jsonrpc":"2.0","id":"gnosis-1","result":{"content":[{"type":"text","text":"a \"quoted\" }{ ]["}]}}`,
			map[string]string{"id": `"gnosis-1"`, "result": `{"content":[{"type":"text","text":"a \"quoted\" }{ ]["}]}`}, true},
		{"numeric id and error", ` {"id": 7 , "error" : {"code":-32601,"message":"nope"}} `,
			map[string]string{"id": "7", "error": `{"code":-32601,"message":"nope"}`}, true},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, map[string]string{"method": `"notifications/tools/list_changed"`}, true},
		{"request with params", `{"id":1,"method":"ping","params":{}}`, map[string]string{"id": "1", "method": `"ping"`, "params": "{}"}, true},
		{"nested keys are not routing members", `{"result":{"id":5,"method":"x"}}`, map[string]string{"result": `{"id":5,"method":"x"}`}, true},
		{"trailing garbage", `{"id":1} x`, nil, false},
		{"two objects", `{"id":1}{"id":2}`, nil, false},
		{"not an object", `[1]`, nil, false},
		{"unterminated string", `{"id":"1}`, nil, false},
		{"raw control character in a string", "{\"id\":\"a\tb\"}", nil, false},
		{"bad escape", `{"id":"\x"}`, nil, false},
		{"bad number", `{"id":01}`, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, ok := scanEnvelope([]byte(tc.line))
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			got := map[string]string{}
			for k, v := range map[string][]byte{"id": env.id, "method": env.method, "result": env.result, "error": env.err, "params": env.params} {
				if v != nil {
					got[k] = string(v)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("members (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzScanEnvelope checks the scanner accepts exactly what encoding/json
// accepts, and finds the members encoding/json finds.
func FuzzScanEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"id":"x","error":{"code":1,"message":"m","data":[1,2.5e-3,true,false,null]}}`,
		`{"method":"notifications/cancelled","params":{"requestId":"a\u00e9\\"}}`,
		`[]`, `"s"`, `-0.1E+2`, `{"a":}`, `{"a":1,}`, "{\"a\":\"\x01\"}", `{"a":"\ud800"}`, `  {}  `, `{"a":tru}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		env, ok := scanEnvelope(b)
		var m map[string]json.RawMessage
		isObject := json.Unmarshal(b, &m) == nil && m != nil
		if ok != isObject {
			t.Fatalf("scanEnvelope(%q) ok = %v, encoding/json object = %v", b, ok, isObject)
		}
		if !ok {
			return
		}
		// encoding/json keeps the last duplicate key, and so does the scanner.
		for key, got := range map[string][]byte{"id": env.id, "method": env.method, "result": env.result, "error": env.err, "params": env.params} {
			want, present := m[key]
			if present != (got != nil) || (present && string(want) != string(got)) {
				// Keys written with escapes ("\u0069d") are not routing
				// members for the scanner; encoding/json unescapes them.
				if present && got == nil {
					continue
				}
				t.Fatalf("%q: member %s = %q, encoding/json %q", b, key, got, want)
			}
		}
	})
}

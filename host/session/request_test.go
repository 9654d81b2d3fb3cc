package session

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/runtime/wire"
)

func TestDecodeRequest(t *testing.T) {
	type want struct {
		ID, Method, Params string
		Invalid            bool // INVALID_REQUEST
	}
	tests := []struct {
		name string
		body string
		want want
	}{
		{"minimal", `{"id":1,"method":"health"}`, want{ID: `1`, Method: "health", Params: `{}`}},
		{"string id and params", `{"id":"a-1","method":"execute","params":{"capability":"c"}}`,
			want{ID: `"a-1"`, Method: "execute", Params: `{"capability":"c"}`}},
		{"whitespace everywhere", " {\n \"id\" : -2.5e1 ,\t\"method\":\"m\" , \"params\" : { \"a\" : [ ] } } ",
			want{ID: `-2.5e1`, Method: "m", Params: `{ "a" : [ ] }`}},
		{"escaped key", `{"\u0069d":3,"method":"m"}`, want{ID: `3`, Method: "m", Params: `{}`}},
		{"last duplicate wins", `{"id":1,"method":"a","method":"b"}`, want{ID: `1`, Method: "b", Params: `{}`}},
		{"null params", `{"id":1,"method":"m","params":null}`, want{ID: `1`, Method: "m", Params: `{}`}},
		{"params with tricky strings", `{"id":1,"method":"m","params":{"s":"}]\"{"}}`,
			want{ID: `1`, Method: "m", Params: `{"s":"}]\"{"}`}},
		{"unknown fields ignored", `{"jsonrpc":"2.0","id":1,"method":"m","extra":[1,{"x":null}]}`, want{ID: `1`, Method: "m", Params: `{}`}},
		{"missing method keeps the id", `{"id":"k"}`, want{ID: `"k"`, Invalid: true}},
		{"empty method", `{"id":1,"method":""}`, want{ID: `1`, Invalid: true}},
		{"method not a string", `{"id":1,"method":5}`, want{ID: `1`, Invalid: true}},
		{"params an array", `{"id":1,"method":"m","params":[]}`, want{ID: `1`, Invalid: true}},
		{"params a string", `{"id":1,"method":"m","params":"{}"}`, want{ID: `1`, Invalid: true}},
		{"null id", `{"id":null,"method":"m"}`, want{Invalid: true}},
		{"boolean id", `{"id":true,"method":"m"}`, want{Invalid: true}},
		{"object id", `{"id":{},"method":"m"}`, want{Invalid: true}},
		{"no id", `{"method":"m"}`, want{Invalid: true}},
		{"id a number out of float64 range", `{"id":1e1000,"method":"m"}`, want{Invalid: true}},
		{"id too long", `{"id":"` + strings.Repeat("x", MaxIDLength) + `","method":"m"}`, want{Invalid: true}},
		{"array", `[{"id":1,"method":"m"}]`, want{Invalid: true}},
		{"null", `null`, want{Invalid: true}},
		{"empty", ``, want{Invalid: true}},
		{"trailing garbage keeps the id", `{"id":1,"method":"m"}x`, want{ID: `1`, Invalid: true}},
		{"two objects keep the first one's id", `{"id":1,"method":"m"}{"id":2,"method":"m"}`, want{ID: `1`, Invalid: true}},
		{"invalid utf-8 in the id", "{\"id\":\"\xff\",\"method\":\"m\"}", want{Invalid: true}},
		{"invalid utf-8 elsewhere keeps the id", "{\"id\":\"a\",\"method\":\"m\xff\"}", want{ID: `"a"`, Invalid: true}},
		{"an id that is not JSON is not kept", `{"id":"\x41","method":`, want{Invalid: true}},
		{"nesting past the bound keeps the id", `{"id":3,"params":` + strings.Repeat("[", 10_001) + `]}`, want{ID: `3`, Invalid: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := DecodeRequest([]byte(tt.body))
			var re *wire.Error
			if err != nil && (!errors.As(err, &re) || re.Code != wire.CodeInvalidRequest) {
				t.Fatalf("error %v is not INVALID_REQUEST", err)
			}
			got := want{ID: string(req.ID), Method: req.Method, Params: string(req.Params), Invalid: err != nil}
			if err != nil {
				got.Method, got.Params = "", ""
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DecodeRequest(%q) (-want +got):\n%s", tt.body, diff)
			}
		})
	}
}

func TestIDKeys(t *testing.T) {
	keys := map[string]string{}
	for _, id := range []string{`1`, `"1"`, `1.0`, `"a"`, `"\u0061"`} {
		keys[id] = idKey(json.RawMessage(id))
	}
	want := map[string]string{`1`: "n1", `"1"`: "s1", `1.0`: "n1.0", `"a"`: "sa", `"\u0061"`: "sa"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

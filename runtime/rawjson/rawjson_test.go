package rawjson

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type member struct{ Key, Val string }

func TestObjectReportsEveryTopLevelMemberRaw(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []member
		ok   bool
	}{
		{"empty", ` {} `, nil, true},
		{"members in order, nested ones not reported", `{"a":1,"b":{"a":[1,"}"]},"c":"x"}`,
			[]member{{"a", "1"}, {"b", `{"a":[1,"}"]}`}, {"c", `"x"`}}, true},
		{"repeated key reported each time", `{"k":1,"k":2}`, []member{{"k", "1"}, {"k", "2"}}, true},
		{"escaped key left as written", `{"\u0069d":7}`, []member{{`\u0069d`, "7"}}, true},
		{"not an object", `[1]`, nil, false},
		{"trailing garbage", `{"a":1} x`, []member{{"a", "1"}}, false},
		{"missing value", `{"a":}`, nil, false},
		{"trailing comma", `{"a":1,}`, []member{{"a", "1"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []member
			ok := Object([]byte(tc.in), func(k, v []byte) { got = append(got, member{string(k), string(v)}) })
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("members (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKeyUndoesEscapes(t *testing.T) {
	tests := []struct {
		raw, want string
		ok        bool
	}{
		{"method", "method", true},
		{`\u0069d`, "id", true},
		{`a\"b`, `a"b`, true},
		{`bad\x`, "", false},
	}
	for _, tc := range tests {
		got, ok := Key([]byte(tc.raw))
		if got != tc.want || ok != tc.ok {
			t.Errorf("Key(%q) = %q, %v; want %q, %v", tc.raw, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzObject checks the scanner accepts exactly what encoding/json accepts,
// and that the members it reports are the ones encoding/json decodes (the
// last of a repeated key winning).
func FuzzObject(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"id":"x","error":{"code":1,"message":"m","data":[1,2.5e-3,true,false,null]}}`,
		`{"method":"notifications/cancelled","params":{"requestId":"a\u00e9\\"}}`,
		`[]`, `"s"`, `-0.1E+2`, `{"a":}`, `{"a":1,}`, "{\"a\":\"\x01\"}", `{"a":"\ud800"}`, `  {}  `, `{"a":tru}`,
		`{"\u0069d":1,"id":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", b, got, want)
		}
		got := map[string]string{}
		keysOK := true
		ok := Object(b, func(k, v []byte) {
			key, kok := Key(k)
			keysOK = keysOK && kok
			got[key] = string(v)
		})
		var m map[string]json.RawMessage
		isObject := json.Unmarshal(b, &m) == nil && m != nil
		if ok != isObject {
			t.Fatalf("Object(%q) = %v, encoding/json object = %v", b, ok, isObject)
		}
		if !ok || !keysOK {
			return
		}
		want := map[string]string{}
		for k, v := range m {
			want[k] = string(v)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("members of %q (-encoding/json +Object):\n%s", b, diff)
		}
	})
}

package framing

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRequestIDFindsTheCallersIDInWhatCannotBeDecoded(t *testing.T) {
	deep := strings.Repeat(`[`, 10_001) + strings.Repeat(`]`, 10_001)
	type want struct {
		ID            string
		UTF8, TooDeep int
	}
	tests := []struct {
		name, body string
		want       want
	}{
		// The first "[" is at depth 3 (in params, in the request): the
		// 9,999th after it is the 10,001st level.
		{"nested past the bound, id first", `{"id":7,"method":"execute","params":{"a":` + deep + `}}`, want{"7", -1, 41 + 9_998}},
		{"nested past the bound, id last", `{"method":"execute","params":` + deep + `,"id":"k-1"}`, want{`"k-1"`, -1, 29 + 9_999}},
		{"a raw 0xFF byte", "{\"id\":\"x\",\"method\":\"execute\",\"params\":{\"a\":\"\xff\"}}", want{`"x"`, 44, -1}},
		{"the key written with escapes", `{"\u0069\u0064":12.5,"method":1}x`, want{"12.5", -1, -1}},
		{"the last id wins", `{"id":1,"id":2,"method":[}`, want{"2", -1, -1}},
		{"an id inside params is not the request's", `{"params":{"id":5},"method":"m"`, want{"", -1, -1}},
		{"an id that is neither a string nor a number", `{"id":null,"method":"m",}`, want{"", -1, -1}},
		{"an object id", `{"id":{"a":1},"m":}`, want{"", -1, -1}},
		{"not an object", `[{"id":1}]`, want{"", -1, -1}},
		{"strings that hold brackets and quotes", `{"a":"}]\"{[","id":3,"b":[1,"]"],}`, want{"3", -1, -1}},
		{"cut short", `{"id":9,"params":{"a":[1,2`, want{"9", -1, -1}},
		{"an unterminated id string", `{"id":"abc`, want{"", -1, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, d := RequestID([]byte(tt.body), 10_000)
			got := want{string(id), d.InvalidUTF8, d.TooDeep}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The scan holds nothing per byte: a 64 MiB body costs what a small one
// does.
func TestRequestIDAllocatesNothing(t *testing.T) {
	body := []byte(`{"params":{"a":` + strings.Repeat(`[{"x":"\u0069d"},`, 1<<16) + `1` + strings.Repeat(`]`, 1<<16) + `},"\u0069d":"last"`)
	if n := testing.AllocsPerRun(10, func() { RequestID(body, 10_000) }); n != 0 {
		t.Errorf("%v allocations per scan", n)
	}
	if id, d := RequestID(body, 10_000); string(id) != `"last"` || d.TooDeep < 0 {
		t.Errorf("id %s, damage %+v", id, d)
	}
}

// FuzzRequestID: whatever the body, the scan ends without panic and finds
// only an id that is a JSON string or number written in the body; on a
// body that is a valid request object it finds the id encoding/json reads.
func FuzzRequestID(f *testing.F) {
	f.Add([]byte(`{"id":1,"method":"health"}`))
	f.Add([]byte("{\"id\":\"\xff\",\"method\":\"x\"}"))
	f.Add([]byte(`{"params":[[[[{"id":2}]]]],"id":"a\"b"}`))
	f.Add([]byte(`{"\u0069d":-1.5e3}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		id, d := RequestID(body, 4)
		if id != nil && !bytes.Contains(body, id) {
			t.Fatalf("id %q is not in the body", id)
		}
		if d.InvalidUTF8 >= len(body) || d.TooDeep >= len(body) {
			t.Fatalf("damage %+v past the body", d)
		}
		var m map[string]json.RawMessage
		if !json.Valid(body) || json.Unmarshal(body, &m) != nil || m == nil {
			return
		}
		want := bytes.TrimSpace(m["id"])
		if len(want) == 0 || (want[0] != '"' && want[0] != '-' && (want[0] < '0' || want[0] > '9')) {
			want = nil
		}
		if !bytes.Equal(want, id) {
			t.Fatalf("%q: id %q, encoding/json reads %q", body, id, want)
		}
	})
}

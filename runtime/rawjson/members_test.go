package rawjson

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// got is what a Members scan found: each key's value, or "-" when absent.
type got struct {
	Complete bool
	ID       string
	Method   string
}

func scanMembers(body string, piece int) got {
	m := &Members{Keys: []string{"id", "method"}, Max: 16}
	for b := []byte(body); len(b) > 0; {
		n := min(piece, len(b))
		m.Write(b[:n])
		b = b[n:]
	}
	g := got{Complete: m.Complete(), ID: "-", Method: "-"}
	if v, ok := m.Value("id"); ok {
		g.ID = string(v)
	}
	if v, ok := m.Value("method"); ok {
		g.Method = string(v)
	}
	return g
}

func TestMembersPicksChosenValuesFromAStream(t *testing.T) {
	big := strings.Repeat("x", 100000)
	tests := []struct {
		name string
		body string
		want got
	}{
		{"id first", `{"id":"gnosis-7","result":{"text":"` + big + `"}}`, got{true, `"gnosis-7"`, "-"}},
		{"id after a large result", `{"result":{"text":"` + big + `","id":1},"jsonrpc":"2.0","id":7}`, got{true, "7", "-"}},
		{"request", `{"jsonrpc":"2.0","id":3,"method":"ping"}`, got{true, "3", `"ping"`}},
		{"quotes and braces inside strings", `{"a":"}\",{\"id\":1","id":"x\"y"}`, got{true, `"x\"y"`, "-"}},
		{"escaped key", `{"\u0069d":5}`, got{true, "5", "-"}},
		{"repeated key keeps the last", `{"id":1,"id":2}`, got{true, "2", "-"}},
		{"long value cut past Max", `{"id":"` + strings.Repeat("a", 40) + `"}`, got{true, `"` + strings.Repeat("a", 16), "-"}},
		{"cut short", `{"id":1,"result":"abc`, got{false, "1", "-"}},
		{"not an object", `["id",1]`, got{false, "-", "-"}},
	}
	for _, tc := range tests {
		for _, piece := range []int{1, 7, 1 << 20} {
			if diff := cmp.Diff(tc.want, scanMembers(tc.body, piece)); diff != "" {
				t.Errorf("%s, pieces of %d (-want +got):\n%s", tc.name, piece, diff)
			}
		}
	}
}

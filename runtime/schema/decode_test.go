package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecode: Decode reads exactly what encoding/json reads (with
// UseNumber), value for value, and refuses what it refuses.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,-0,"x\u00e9\ud83d\ude00"],"b":{"c":null,"d":true}}`, `"\ud800x"`, `"\udc00\ud800"`, "\"\xff\"", `[1,]`, `01`, `{"a":1,"a":2}`, ` 1 `, `[] x`, `"\u0000"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(data)
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var want any
		werr := d.Decode(&want)
		if werr == nil && d.More() {
			werr = errors.New("text after the value")
		}
		if werr == nil {
			// encoding/json's Decoder stops after the value; anything but
			// white space after it is an error for both.
			rest := bytes.TrimSpace(data[d.InputOffset():])
			if len(rest) > 0 {
				werr = errors.New("text after the value")
			}
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: Decode error %v, encoding/json %v", data, err, werr)
		}
		if err == nil && !cmp.Equal(want, got) {
			t.Fatalf("%q: Decode %#v, encoding/json %#v", data, got, want)
		}
	})
}

func TestDecodeRefusesNestingPastItsBoundAndSaysSo(t *testing.T) {
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, err := Decode([]byte(ok)); err != nil {
		t.Errorf("%d levels: %v", MaxDepth, err)
	}
	deep := strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1)
	_, err := Decode([]byte(deep))
	var de *DepthError
	if !errors.As(err, &de) || err.Error() != "nested deeper than 10000 levels (at byte 50000)" {
		t.Errorf("error %v, want a DepthError at byte 50000", err)
	}
}

// Text that is not JSON is refused before anything is allocated at the
// size its separators would suggest.
func TestDecodeOfTextThatIsNotJSONAllocatesLittle(t *testing.T) {
	bad := []byte("[" + strings.Repeat(",", 1<<20))
	n := allocated(func() { _, _ = Decode(bad) })
	if n > 64<<10 {
		t.Errorf("decoding 1 MiB of commas allocated %d bytes", n)
	}
}

package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// fuzzSecret is the known value the fuzz targets plant.
const fuzzSecret = "PLANTEDfz-7q9W"

// A known value planted in any text, whole or cut in two by a line break
// anywhere, never comes out: the masked text holds it neither as written
// nor with its line breaks taken out.
func FuzzSetMasksAPlantedValue(f *testing.F) {
	f.Add("before ", " after", uint8(0))
	f.Add("a\n", "\nb", uint8(5))
	f.Add(`{"password":"`, `\"x"}`, uint8(13))
	f.Add("PLANTEDfz", "7q9W", uint8(1))
	var s Set
	s.AddEnv(map[string]string{"API_KEY": fuzzSecret})
	f.Fuzz(func(t *testing.T, before, after string, cut uint8) {
		planted := fuzzSecret
		if k := int(cut) % len(fuzzSecret); k > 0 {
			planted = fuzzSecret[:k] + "\n" + fuzzSecret[k:]
		}
		got := s.Redact(before + planted + after)
		joined, _ := joinLines(got)
		if strings.Contains(got, fuzzSecret) || strings.Contains(joined, fuzzSecret) {
			t.Errorf("the planted value came out of %q: %q", before+planted+after, got)
		}
	})
}

// Whatever a line holds, Lines never panics, and a line that was JSON stays
// JSON.
func FuzzLinesKeepJSON(f *testing.F) {
	f.Add([]byte(`{"level":"info","provider":"p","stream":"stderr","message":"password:"}`), "hunter2")
	f.Add([]byte(`{"a":["x\"y",{"token":"PLANTEDfz-7q9W"}],"message":"-----BEGIN RSA PRIVATE KEY-----"}`), "MIIE")
	f.Add([]byte(`not json "password`), "")
	var s Set
	s.AddEnv(map[string]string{"API_KEY": fuzzSecret})
	f.Fuzz(func(t *testing.T, line []byte, next string) {
		l := NewLines(&s)
		got := l.Redact(line)
		if json.Valid(line) && !json.Valid(got) {
			t.Errorf("a JSON line came out as %q", got)
		}
		second := stderrLine("p", next)
		if got := l.Redact(second); !json.Valid(got) || bytes.Contains(got, []byte(fuzzSecret)) {
			t.Errorf("the next stderr line came out as %q", got)
		}
	})
}

// decode reads any JSON string literal as encoding/json does, but for
// invalid UTF-8, which it keeps as it is (encoding/json makes each such
// byte U+FFFD).
func FuzzDecodeIsJSONs(f *testing.F) {
	f.Add(`"a\"b\\c\u00e9\ud83d\ude00"`)
	f.Add(`"\ud800\u0041"`)
	f.Fuzz(func(t *testing.T, literal string) {
		var want string
		if json.Unmarshal([]byte(literal), &want) != nil || len(literal) < 2 || literal[0] != '"' {
			return
		}
		line := []byte(`{"m":` + literal + `}`)
		lits, ok := literals(line)
		if !ok || len(lits) != 2 {
			t.Fatalf("literals(%s) = %v, %v", line, lits, ok)
		}
		if got := decode(line, lits[1]); string([]rune(got)) != want {
			t.Errorf("decode(%s) = %q, want %q", literal, got, want)
		}
	})
}

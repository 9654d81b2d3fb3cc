package chunk

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// reply makes a JSON reply whose result string is s, as the host would send it.
func reply(t testing.TB, s string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"id": 1, "ok": true, "result": s})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkFrames asserts the package's contract for one split.
func checkFrames(t *testing.T, id, msg []byte, limit int, frames [][]byte) {
	t.Helper()
	var joined strings.Builder
	for i, f := range frames {
		if len(f) > limit {
			t.Fatalf("frame %d is %d bytes, limit %d", i, len(f), limit)
		}
		var got struct {
			ID     json.RawMessage
			Chunk  int
			Chunks int
			Data   string
		}
		if err := json.Unmarshal(f, &got); err != nil {
			t.Fatalf("frame %d is not JSON: %v\n%s", i, err, f)
		}
		if got.Chunk != i || got.Chunks != len(frames) || !bytes.Equal(got.ID, id) {
			t.Fatalf("frame %d header: id %s chunk %d chunks %d", i, got.ID, got.Chunk, got.Chunks)
		}
		if !utf8.ValidString(got.Data) {
			t.Fatalf("frame %d data splits a UTF-8 sequence", i)
		}
		joined.WriteString(got.Data)
	}
	if joined.String() != string(msg) {
		t.Fatalf("reassembled reply differs: got %d bytes, want %d", joined.Len(), len(msg))
	}
}

func TestSplitKeepsEveryFrameWithinLimitAndReassemblesExactly(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		limit   int
	}{
		{"ascii", strings.Repeat("abcdefgh", 4000), 1000},
		{"quotes and backslashes double in size", strings.Repeat(`"\`, 5000), 300},
		{"control characters grow sixfold", strings.Repeat("\x01\x1f", 3000), 200},
		{"html is not escaped", strings.Repeat("<a href='x'>&</a>", 2000), 500},
		{"two-byte runes", strings.Repeat("é", 7000), 101},
		{"three-byte runes", strings.Repeat("€", 7000), 103},
		{"four-byte runes", strings.Repeat("😀", 7000), 97},
		{"line separators", strings.Repeat("\u2028\u2029", 2000), 90},
		{"mixed near minimum", strings.Repeat("a\x00é😀\"", 500), 60},
		{"exactly many chunks needs wider counters", strings.Repeat("x", 50000), 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := []byte(`"req-1"`)
			msg := reply(t, tt.payload)
			frames, err := Split(id, msg, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(frames) < 2 {
				t.Fatalf("got %d frames, want a chunked reply", len(frames))
			}
			checkFrames(t, id, msg, tt.limit, frames)
		})
	}
}

func TestSplitRandomPayloads(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune{'a', 'Z', '"', '\\', '\n', '\t', 0, 0x1f, 0x7f, 'é', '€', '😀', '<', '>', '&', 0x2028, 0xFFFD}
	for round := 0; round < 400; round++ {
		n := rng.IntN(3000)
		var sb strings.Builder
		sparse := round%2 == 1 // long plain runs: the eight-byte fast paths
		for i := 0; i < n; i++ {
			if sparse && rng.IntN(40) != 0 {
				sb.WriteByte("abcXYZ019+/="[rng.IntN(12)])
				continue
			}
			sb.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		id := []byte(`123`)
		if rng.IntN(2) == 0 {
			id = []byte(`"` + strings.Repeat("k", rng.IntN(20)) + `"`)
		}
		limit := 100 + rng.IntN(2000)
		msg := reply(t, sb.String())
		frames, err := Split(id, msg, limit)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		checkFrames(t, id, msg, limit, frames)
	}
}

func TestSplitRejects(t *testing.T) {
	tests := []struct {
		name  string
		id    string
		msg   []byte
		limit int
		want  error
	}{
		{"invalid utf-8", `1`, []byte("{\"a\":\"\xff\"}"), 1000, ErrInvalidUTF8},
		{"limit smaller than header", `1`, []byte(`{"a":"bcdefgh"}`), 40, ErrLimitTooSmall},
		{"id leaves no room", `"` + strings.Repeat("i", 100) + `"`, []byte(`{}`), 120, ErrLimitTooSmall},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Split([]byte(tt.id), tt.msg, tt.limit)
			if !errors.Is(err, tt.want) {
				t.Errorf("Split error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestJoinerReassemblesAndPassesOtherMessages(t *testing.T) {
	msg := reply(t, strings.Repeat("héllo \"world\"\n", 500))
	frames, err := Split([]byte(`7`), msg, 256)
	if err != nil {
		t.Fatal(err)
	}
	var j Joiner
	event := []byte(`{"event":"capabilities.changed","capabilities":3}`)
	if got, err := j.Add(event); err != nil || !bytes.Equal(got, event) {
		t.Fatalf("event: got %s, %v; want it passed through", got, err)
	}
	var got []byte
	for i, f := range frames {
		out, err := j.Add(f)
		if err != nil {
			t.Fatal(err)
		}
		if i < len(frames)-1 && out != nil {
			t.Fatalf("frame %d completed the reply early", i)
		}
		got = out
	}
	if diff := cmp.Diff(string(msg), string(got)); diff != "" {
		t.Errorf("joined (-want +got):\n%s", diff)
	}
}

func TestJoinerRejectsOutOfOrderChunks(t *testing.T) {
	frames, err := Split([]byte(`7`), reply(t, strings.Repeat("x", 1000)), 200)
	if err != nil {
		t.Fatal(err)
	}
	var j Joiner
	if _, err := j.Add(frames[1]); err == nil {
		t.Error("chunk 1 before chunk 0 accepted")
	}
}

func BenchmarkSplit16MiB(b *testing.B) {
	payload := bytes.Repeat([]byte(`{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAA+/="},`), 16<<20/52)
	msg := append(append([]byte(`{"id":1,"ok":true,"result":[`), payload...), `{}]}`...)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if err := Each([]byte(`1`), msg, DefaultLimit, func([]byte) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWordTestsAgreeWithTheByteTable checks the eight-bytes-at-a-time tests
// against the per-byte table for every pair of adjacent byte values at every
// position (borrows between bytes are where such tricks go wrong).
func TestWordTestsAgreeWithTheByteTable(t *testing.T) {
	for p := 0; p < 7; p++ {
		for a := 0; a < 256; a++ {
			for b := 0; b < 256; b++ {
				word := []byte("xxxxxxxx")
				word[p], word[p+1] = byte(a), byte(b)
				x := binary.LittleEndian.Uint64(word)
				wantNoEscape := escLen[a] == 1 && escLen[b] == 1
				wantPlain := wantNoEscape && a < 0x80 && b < 0x80
				if noEscape8(x) != wantNoEscape || plain8(x) != wantPlain {
					t.Fatalf("bytes %#x %#x at %d: noEscape8 %v (want %v), plain8 %v (want %v)",
						a, b, p, noEscape8(x), wantNoEscape, plain8(x), wantPlain)
				}
			}
		}
	}
}

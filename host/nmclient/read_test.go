package nmclient

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/host/chunk"
	"github.com/google/go-cmp/cmp"
)

// chunks splits a reply the way the host does, with frames of at most limit bytes.
func chunks(t *testing.T, id, reply string, limit int) []string {
	t.Helper()
	frames, err := chunk.Split([]byte(id), []byte(reply), limit)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range frames {
		out = append(out, string(f))
	}
	return out
}

// got is a message as compared in tests.
type got struct {
	Body   string
	ID     string
	Reply  bool
	Frames int
}

func TestFramesBecomeMessages(t *testing.T) {
	big := `{"id":7,"ok":true,"result":"` + strings.Repeat("é", 300) + `"}`
	other := `{"id":8,"ok":true,"result":"` + strings.Repeat("x", 300) + `"}`
	tests := []struct {
		name       string
		frames     []string
		want       []got
		violations []string // substrings, in order; also what ends a non-reporting stream
	}{
		{name: "reply", frames: []string{`{"id":1,"ok":true,"result":{}}`},
			want: []got{{Body: `{"id":1,"ok":true,"result":{}}`, ID: "1", Reply: true, Frames: 1}}},
		{name: "reply with null id", frames: []string{`{"id":null,"ok":false,"error":true,"code":"BAD_JSON"}`},
			want: []got{{Body: `{"id":null,"ok":false,"error":true,"code":"BAD_JSON"}`, ID: "null", Reply: true, Frames: 1}}},
		{name: "runtime event", frames: []string{`{"event":"capabilities.changed","capabilities":3}`},
			want: []got{{Body: `{"event":"capabilities.changed","capabilities":3}`, Frames: 1}}},
		{name: "request-scoped event then its reply", frames: []string{`{"id":"r","event":"progress"}`, `{"id":"r","ok":true}`},
			want: []got{{Body: `{"id":"r","event":"progress"}`, ID: `"r"`, Frames: 1}, {Body: `{"id":"r","ok":true}`, ID: `"r"`, Reply: true, Frames: 1}}},
		{name: "chunked reply is joined", frames: chunks(t, "7", big, 128),
			want: []got{{Body: big, ID: "7", Reply: true, Frames: len(chunks(t, "7", big, 128))}}},
		{name: "two chunked replies one after the other",
			frames: append(chunks(t, "7", big, 256), chunks(t, "8", other, 256)...),
			want: []got{
				{Body: big, ID: "7", Reply: true, Frames: len(chunks(t, "7", big, 256))},
				{Body: other, ID: "8", Reply: true, Frames: len(chunks(t, "8", other, 256))},
			}},
		{name: "not a JSON object", frames: []string{`[1,2]`, `{"id":1,"ok":true}`},
			want:       []got{{Body: `{"id":1,"ok":true}`, ID: "1", Reply: true, Frames: 1}},
			violations: []string{"frame is not a JSON object"}},
		{name: "chunk frame with its members in another order",
			frames: []string{`{"chunks":1,"data":"{\"id\":5,\"ok\":true}","chunk":0,"id":5}`},
			want:   []got{{Body: `{"id":5,"ok":true}`, ID: "5", Reply: true, Frames: 1}}},
		{name: "chunk frame cut short", frames: []string{`{"id":1,"chunk":0,"chunks":2,"data":"ab`, `{"id":2,"ok":true}`},
			want:       []got{{Body: `{"id":2,"ok":true}`, ID: "2", Reply: true, Frames: 1}},
			violations: []string{"frame is not a JSON object"}},
		{name: "chunk without its first", frames: chunks(t, "7", big, 128)[1:2],
			violations: []string{"chunk 1/"}},
		{name: "event interleaved in a chunked reply is still delivered",
			frames: append(append(chunks(t, "7", big, 128)[:1], `{"event":"x"}`), chunks(t, "7", big, 128)[1:]...),
			want: []got{
				{Body: `{"event":"x"}`, Frames: 1},
				{Body: big, ID: "7", Reply: true, Frames: len(chunks(t, "7", big, 128))},
			},
			violations: []string{"frame interleaved in chunked reply 7"}},
		{name: "chunks of two replies interleaved",
			frames:     []string{chunks(t, "7", big, 128)[0], chunks(t, "8", other, 128)[0]},
			violations: []string{"chunk 0/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, reporting := range []bool{true, false} {
				var rd reader
				var msgs []got
				var violations []string
				var report func(error)
				if reporting {
					report = func(err error) { violations = append(violations, err.Error()) }
				}
				for _, f := range tt.frames {
					m, err := rd.frame([]byte(f), report)
					if err != nil {
						violations = append(violations, err.Error())
						break
					}
					if m != nil {
						msgs = append(msgs, got{string(m.Body), string(m.ID), m.Reply, m.Frames})
					}
				}
				if !reporting && len(tt.violations) > 0 {
					// Without a report, the first violation ends the stream.
					if len(violations) != 1 || !strings.Contains(violations[0], tt.violations[0]) {
						t.Errorf("stream ended with %q, want an error containing %q", violations, tt.violations[0])
					}
					continue
				}
				if diff := cmp.Diff(tt.want, msgs); diff != "" {
					t.Errorf("reporting=%v: messages (-want +got):\n%s", reporting, diff)
				}
				if len(violations) != len(tt.violations) {
					t.Fatalf("reporting=%v: violations %q, want %d containing %q", reporting, violations, len(tt.violations), tt.violations)
				}
				for i, v := range violations {
					if !strings.Contains(v, tt.violations[i]) {
						t.Errorf("violation %d = %q, want it to contain %q", i, v, tt.violations[i])
					}
				}
			}
		})
	}
}

func TestReplyIDIsCopiedAsWritten(t *testing.T) {
	var rd reader
	m, err := rd.frame([]byte(`{"id": "a b" ,"ok":true}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(json.RawMessage(`"a b"`), m.ID); diff != "" {
		t.Errorf("id (-want +got):\n%s", diff)
	}
}

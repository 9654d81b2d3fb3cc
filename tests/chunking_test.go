package tests

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/testshort"
	"github.com/gnosis/gnosis/tests/fakemunim/screen"
)

// TestReplyOver8MiBIsChunked: a screenshot whose reply is about 9.3 MiB of
// JSON arrives as consecutive chunk frames, none above Chrome's 1 MiB (the
// reader checks every frame), and the reassembled JSON is valid and exact.
func TestReplyOver8MiBIsChunked(t *testing.T) {
	testshort.Parallel(t)
	h, _ := startStandard(t)
	const n = 7 << 20 // base64 makes this 9,786,712 bytes of data
	r := h.execute("computer.screenshot", map[string]any{"bytes": n})
	wantOK(t, r)
	if len(r.raw) <= 8<<20 {
		t.Fatalf("reply is only %d bytes; the test needs one over 8 MiB", len(r.raw))
	}
	if want := (len(r.raw) + defaultMaxFrame - 1) / defaultMaxFrame; r.frames < want {
		t.Errorf("reply of %d bytes came in %d frames, want at least %d", len(r.raw), r.frames, want)
	}
	if !json.Valid(r.raw) {
		t.Fatal("reassembled reply is not valid JSON")
	}
	var res struct {
		Content []struct {
			Type     string `json:"type"`
			Data     string `json:"data"`
			MimeType string `json:"mimeType"`
		} `json:"content"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "image" || res.Content[0].MimeType != "image/png" {
		t.Fatalf("unexpected content: %d items", len(res.Content))
	}
	data, err := base64.StdEncoding.DecodeString(res.Content[0].Data)
	if err != nil {
		t.Fatalf("image data: %v", err)
	}
	if !bytes.Equal(data, screen.Bytes(n)) {
		t.Errorf("image data differs from what fakemunim sent (%d bytes, want %d)", len(data), n)
	}
	var cap string
	r.field(t, "capability", &cap)
	if cap != "computer.screenshot" {
		t.Errorf("capability %q", cap)
	}
	stillServing(t, h)
}

// TestChunkingKeepsUnicodeAndEscapes: with a 4 KiB frame limit, a reply full
// of multi-byte UTF-8, characters JSON must escape and HTML-sensitive ones is
// split into frames that each stay within the limit after escaping, and the
// pieces join to exactly the reply.
func TestChunkingKeepsUnicodeAndEscapes(t *testing.T) {
	testshort.Parallel(t)
	f := newFake(t)
	h := startHost(t, hostOptions{config: standardConfig(f), maxFrame: 4096})
	h.awaitReady()
	text := strings.Repeat("é😀中\"\\\n\t\x01<>&\u2028 ", 3000)
	args := map[string]any{"text": text, "n": 1}
	r := h.execute("computer.echo", args)
	wantOK(t, r)
	if r.frames < 10 {
		t.Fatalf("reply of %d bytes came in %d frames; expected chunking at 4 KiB", len(r.raw), r.frames)
	}
	var res struct {
		StructuredContent map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"text": text, "n": float64(1)}
	if diff := cmp.Diff(want, res.StructuredContent); diff != "" {
		t.Errorf("echoed arguments differ after chunking (-want +got):\n%s", diff)
	}
	// Small replies and events still come whole while the limit is low.
	r = h.call("health", nil)
	if r.frames != 1 {
		t.Errorf("health came in %d frames", r.frames)
	}
}

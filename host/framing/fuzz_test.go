package framing

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReadFrame feeds arbitrary bytes to the reader: it must never panic,
// never return a body longer than the limit, and every error must be one of
// the documented kinds. Frames it accepts must re-encode to the same bytes.
func FuzzReadFrame(f *testing.F) {
	f.Add(frame(`{"id":1,"method":"health"}`))
	f.Add(frame(""))
	f.Add([]byte{1, 0})
	f.Add(append(header(1<<20), 'x'))
	f.Add(header(0xFFFFFFFF))
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 1 << 16
		r := NewReader(bytes.NewReader(data), max)
		var consumed int
		for {
			body, err := r.Read()
			if err == io.EOF {
				if consumed != len(data) {
					t.Fatalf("clean EOF after %d of %d bytes", consumed, len(data))
				}
				return
			}
			if err != nil {
				if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrTooLarge) {
					t.Fatalf("undocumented error: %v", err)
				}
				return
			}
			if len(body) > max {
				t.Fatalf("body of %d bytes above limit %d", len(body), max)
			}
			re := Append(nil, body)
			if !bytes.Equal(re, data[consumed:consumed+len(re)]) {
				t.Fatalf("re-encoded frame differs from input")
			}
			consumed += len(re)
		}
	})
}

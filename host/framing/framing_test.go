package framing

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func frame(body string) []byte { return Append(nil, []byte(body)) }

func header(n uint32) []byte {
	h := make([]byte, 4)
	Order.PutUint32(h, n)
	return h
}

func TestReadReturnsFramesThenCleanEOF(t *testing.T) {
	stream := append(append(frame(`{"id":1}`), frame("")...), frame(`{"id":"two"}`)...)
	r := NewReader(bytes.NewReader(stream), 0)
	var got []string
	for {
		b, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		got = append(got, string(b))
	}
	if diff := cmp.Diff([]string{`{"id":1}`, ``, `{"id":"two"}`}, got); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name      string
		stream    []byte
		max       int
		truncated bool
		tooLarge  uint32 // announced length when too large
	}{
		{name: "length prefix cut short", stream: []byte{5, 0}, truncated: true},
		{name: "body cut short", stream: append(header(10), "abc"...), truncated: true},
		{name: "length above limit", stream: header(11), max: 10, tooLarge: 11},
		{name: "length above 64 MiB default", stream: header(MaxInbound + 1), tooLarge: MaxInbound + 1},
		{name: "maximum uint32 length", stream: header(0xFFFFFFFF), tooLarge: 0xFFFFFFFF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewReader(bytes.NewReader(tt.stream), tt.max).Read()
			if err == nil {
				t.Fatal("Read succeeded, want an error")
			}
			if got := errors.Is(err, ErrTruncated); got != tt.truncated {
				t.Errorf("errors.Is(%v, ErrTruncated) = %v, want %v", err, got, tt.truncated)
			}
			if got := errors.Is(err, ErrTooLarge); got != (tt.tooLarge != 0) {
				t.Errorf("errors.Is(%v, ErrTooLarge) = %v, want %v", err, got, tt.tooLarge != 0)
			}
			var tl *TooLargeError
			if errors.As(err, &tl) && tl.Length != tt.tooLarge {
				t.Errorf("TooLargeError.Length = %d, want %d", tl.Length, tt.tooLarge)
			}
			if err == io.EOF {
				t.Errorf("got clean io.EOF for a broken frame")
			}
		})
	}
}

// countingReader records how many bytes were read, to prove an oversized
// frame's body is never consumed.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestTooLargeDoesNotReadOrAllocateBody(t *testing.T) {
	cr := &countingReader{r: io.MultiReader(bytes.NewReader(header(MaxInbound+1)), neverEnding{})}
	allocs := testing.AllocsPerRun(1, func() {
		cr.n = 0
		_, _ = NewReader(cr, 0).Read()
	})
	if cr.n != 4 {
		t.Errorf("read %d bytes, want only the 4-byte length", cr.n)
	}
	// The error value and reader are small; a 64 MiB body would be far more.
	if allocs > 4 {
		t.Errorf("%v allocations for a rejected frame", allocs)
	}
}

type neverEnding struct{}

func (neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

func TestWriteThenReadRoundTrips(t *testing.T) {
	bodies := []string{"", "{}", `{"id":1,"ok":true}`, string(bytes.Repeat([]byte("é"), 5000))}
	var buf bytes.Buffer
	for _, b := range bodies {
		if err := Write(&buf, []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(&buf, 0)
	for _, want := range bodies {
		got, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
	if _, err := r.Read(); err != io.EOF {
		t.Errorf("after last frame: %v, want io.EOF", err)
	}
}

func TestLengthIsNativeLittleEndianOnOurPlatforms(t *testing.T) {
	got := frame("abc")
	if diff := cmp.Diff([]byte{3, 0, 0, 0, 'a', 'b', 'c'}, got); diff != "" {
		t.Errorf("frame bytes (-want +got):\n%s", diff)
	}
}

package framing

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unsafe"
)

// Limits of Chrome's native messaging, in bytes.
const (
	// MaxInbound is the largest message a browser may send to a host (64 MiB).
	MaxInbound = 64 << 20
	// MaxOutbound is the largest message a host may send to a browser (1 MiB);
	// one byte more and Chrome closes the port.
	MaxOutbound = 1 << 20
)

// ErrTooLarge is returned (wrapped in a *TooLargeError) when a frame's length
// prefix exceeds the reader's limit. The body is neither read nor allocated,
// so the stream is no longer in sync after it.
var ErrTooLarge = errors.New("frame too large")

// ErrTruncated is returned when the stream ends inside a frame (in the
// length prefix or the body). A clean end of stream between frames is io.EOF.
var ErrTruncated = errors.New("truncated frame")

// TooLargeError reports the announced length of an oversized frame.
// errors.Is(err, ErrTooLarge) matches it.
type TooLargeError struct {
	Length uint32
	Max    int
}

// Error says how large the frame claimed to be and what the limit is.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("frame too large: %d bytes announced, limit %d", e.Length, e.Max)
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Order is the byte order of the length prefix: the machine's native order,
// as Chrome writes it.
var Order binary.ByteOrder = nativeOrder()

func nativeOrder() binary.ByteOrder {
	x := uint16(1)
	if *(*byte)(unsafe.Pointer(&x)) == 1 {
		return binary.LittleEndian
	}
	return binary.BigEndian
}

// Reader reads frames from a stream.
type Reader struct {
	r   io.Reader
	max int
	hdr [4]byte
}

// NewReader returns a Reader that rejects frames longer than max bytes
// (max <= 0 means MaxInbound).
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = MaxInbound
	}
	return &Reader{r: r, max: max}
}

// Read returns the next frame's body. It returns io.EOF at a clean end of
// stream, an error wrapping ErrTruncated if the stream ends inside a frame,
// and a *TooLargeError (errors.Is ErrTooLarge) without reading the body if
// the announced length exceeds the limit.
func (fr *Reader) Read() ([]byte, error) {
	return Read(fr.r, fr.hdr[:], fr.max)
}

// Read reads one frame from r with the given limit. hdr is scratch space of at
// least 4 bytes (nil allocates).
func Read(r io.Reader, hdr []byte, max int) ([]byte, error) {
	if len(hdr) < 4 {
		hdr = make([]byte, 4)
	}
	hdr = hdr[:4]
	if n, err := io.ReadFull(r, hdr); err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		if err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("reading length: %w (%d of 4 bytes)", ErrTruncated, n)
		}
		return nil, fmt.Errorf("reading length: %w", err)
	}
	n := Order.Uint32(hdr)
	if uint64(n) > uint64(max) {
		return nil, &TooLargeError{Length: n, Max: max}
	}
	body := make([]byte, n)
	if got, err := io.ReadFull(r, body); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("reading body: %w (%d of %d bytes)", ErrTruncated, got, n)
		}
		return nil, fmt.Errorf("reading body: %w", err)
	}
	return body, nil
}

// Write writes body as one frame. It does not enforce the outbound limit:
// callers that talk to a browser chunk first (package host/chunk).
func Write(w io.Writer, body []byte) error {
	if uint64(len(body)) > 0xFFFFFFFF {
		return fmt.Errorf("writing frame: %w: %d bytes", ErrTooLarge, len(body))
	}
	var hdr [4]byte
	Order.PutUint32(hdr[:], uint32(len(body)))
	// One Write call per frame when possible keeps pipes from seeing a
	// header without its body for long; two calls are still correct.
	if _, err := w.Write(hdr[:]); err != nil {
		return fmt.Errorf("writing frame length: %w", err)
	}
	if _, err := w.Write(body); err != nil {
		return fmt.Errorf("writing frame body: %w", err)
	}
	return nil
}

// Append appends body as one frame to dst and returns the extended slice.
// Writers that batch use it to issue a single write per frame.
func Append(dst, body []byte) []byte {
	var hdr [4]byte
	Order.PutUint32(hdr[:], uint32(len(body)))
	dst = append(dst, hdr[:]...)
	return append(dst, body...)
}

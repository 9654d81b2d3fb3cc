package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/gnosis/gnosis/host/framing"
	"github.com/gnosis/gnosis/runtime/rawjson"
	"github.com/gnosis/gnosis/runtime/wire"
)

// DefaultMaxInflightBytes bounds the bytes held for requests in flight when
// no WithMaxInflightBytes option says otherwise (config.DefaultInflightBytes
// is the same figure).
const DefaultMaxInflightBytes = 256 << 20

// WithMaxInflightBytes bounds the bytes the session holds for requests in
// flight: each request's frame from the moment its length is read until its
// reply is written, plus replies waiting to be written. A request that would
// take the total past n is answered OVERLOADED without its body being kept.
// The replies methods reserve while they build them have a budget of their
// own, the smaller of n and MaxReplyBytes (reserve.go). n <= 0 means
// DefaultMaxInflightBytes.
func WithMaxInflightBytes(n int64) Option {
	return func(s *Session) {
		if n <= 0 {
			n = DefaultMaxInflightBytes
		}
		s.maxInflight = n
	}
}

// admit looks at the next frame's length without consuming it and takes
// that many bytes of the budget. fits is false when the budget cannot hold
// them: the frame must then be refused (refuse) instead of read. Frames the
// framing reader rejects itself (a short header, a length above the inbound
// limit) are let through with size 0 so it reports them as before.
func (s *Session) admit(br *bufio.Reader) (size int64, fits bool) {
	hdr, err := br.Peek(4)
	if err != nil {
		return 0, true
	}
	n := int64(framing.Order.Uint32(hdr))
	maxIn := s.maxIn
	if maxIn <= 0 {
		maxIn = framing.MaxInbound
	}
	if n > int64(maxIn) {
		return 0, true
	}
	return n, s.bytes.TryTake(n)
}

// refuse consumes a frame of size bytes that does not fit in the budget and
// answers it OVERLOADED. The body is read in pieces and dropped, so the
// stream stays in sync without the session ever holding it; on the way its
// top-level "id" is picked out so the refusal reaches the request it is for
// (null when the body has no valid id). An error is a failure to read the
// frame (ErrTruncated when the input ends inside it).
func (s *Session) refuse(br *bufio.Reader, size int64) error {
	if _, err := br.Discard(4); err != nil {
		return fmt.Errorf("reading length: %w", err)
	}
	var sc idScanner
	if got, err := io.CopyN(&sc, br, size); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("reading body: %w (%d of %d bytes)", framing.ErrTruncated, got, size)
		}
		return fmt.Errorf("reading body: %w", err)
	}
	id := sc.ID()
	held, limit := s.bytes.Held(), s.bytes.Limit()
	ev := s.log.Warn().Int64("bytes", size).Int64("held", held).Int64("limit", limit)
	if id != nil {
		ev = ev.RawJSON("id", id)
	}
	ev.Msg("request refused: requests in flight hold too many bytes")
	msg := fmt.Sprintf("requests in flight hold %d bytes and this one needs %d more, above the %d-byte limit (limits.inflightBytes); retry when earlier ones finish", held, size, limit)
	if size > limit {
		msg = fmt.Sprintf("a request of %d bytes is above the %d-byte limit for requests in flight (limits.inflightBytes) on its own", size, limit)
	}
	s.reply(id, nil, &wire.Error{Code: wire.CodeOverloaded, Message: msg})
	return nil
}

// idScanner picks the top-level "id" out of a request body fed to it in
// pieces (rawjson.Members), holding only a few hundred bytes whatever the
// body's size. A malformed body may still yield an id, which ID checks is a
// valid request id. Its zero value is ready to use.
type idScanner struct {
	m *rawjson.Members
}

// Write scans p; it never fails.
func (sc *idScanner) Write(p []byte) (int, error) {
	if sc.m == nil {
		sc.m = &rawjson.Members{Keys: []string{"id"}, Max: MaxIDLength}
	}
	return sc.m.Write(p)
}

// ID returns the body's top-level id if it is a valid request id, else nil.
func (sc *idScanner) ID() json.RawMessage {
	if sc.m == nil || !sc.m.Complete() {
		return nil
	}
	raw, ok := sc.m.Value("id")
	if !ok {
		return nil
	}
	id, err := decodeID(raw)
	if err != nil || !json.Valid(id) || !utf8.Valid(id) {
		return nil
	}
	return json.RawMessage(string(id))
}

package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
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
// n <= 0 means DefaultMaxInflightBytes.
func WithMaxInflightBytes(n int64) Option {
	return func(s *Session) {
		if n <= 0 {
			n = DefaultMaxInflightBytes
		}
		s.budget.limit = n
	}
}

// budget counts the bytes held for requests in flight. Requests are admitted
// against its limit; replies are added whatever the total, since by then the
// work is done and the bytes exist anyway.
type budget struct {
	limit int64
	held  atomic.Int64
}

// take adds n to the total if that keeps it within the limit.
func (b *budget) take(n int64) bool {
	for {
		h := b.held.Load()
		if h+n > b.limit {
			return false
		}
		if b.held.CompareAndSwap(h, h+n) {
			return true
		}
	}
}

// hold adds n to the total unconditionally.
func (b *budget) hold(n int64) { b.held.Add(n) }

// release gives back n bytes taken or held.
func (b *budget) release(n int64) {
	if n != 0 {
		b.held.Add(-n)
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
	return n, s.budget.take(n)
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
	held, limit := s.budget.held.Load(), s.budget.limit
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

// idScanner picks the top-level "id" member out of a request body fed to it
// in pieces, holding only a few hundred bytes whatever the body's size. It
// follows JSON's structure (strings, escapes, nesting) without validating
// it: a malformed body may still yield an id, which ID checks is a valid
// request id. A repeated "id" keeps the last, as DecodeRequest does.
type idScanner struct {
	depth   int
	inStr   bool
	esc     bool
	state   memberState
	key     []byte // raw text of the current top-level key, up to maxKey bytes
	keyLong bool
	capture bool   // the current top-level value is the id's
	val     []byte // raw text of the id's value, up to MaxIDLength+1 bytes
	id      []byte // the last complete id value
	hasID   bool
	bad     bool // not an object
	done    bool // the object closed
}

type memberState uint8

const (
	wantKey   memberState = iota // before a key (or the object's end)
	inKey                        // inside a key's quotes
	wantColon                    // after a key
	inValue                      // from the colon to the member's end
)

// maxKey bounds the key text kept: enough for "id" with every letter escaped.
const maxKey = 16

// Write scans p; it never fails.
func (sc *idScanner) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i++ {
		if sc.inStr && !sc.esc && !sc.keeping() {
			// Inside a string nothing is kept: jump to its next quote or
			// backslash (params are mostly long strings).
			rest := p[i:]
			j := bytes.IndexByte(rest, '"')
			if j < 0 {
				j = len(rest)
			}
			if k := bytes.IndexByte(rest[:j], '\\'); k >= 0 {
				j = k
			}
			if i += j; i == len(p) {
				break
			}
		}
		sc.scan(p[i])
	}
	return len(p), nil
}

// keeping reports whether the scanner is inside the text it keeps: a
// top-level key or the id's value.
func (sc *idScanner) keeping() bool {
	return sc.capture || (sc.depth == 1 && sc.state == inKey)
}

func (sc *idScanner) scan(c byte) {
	if sc.bad {
		return
	}
	if sc.inStr {
		switch {
		case sc.esc:
			sc.esc = false
		case c == '\\':
			sc.esc = true
		case c == '"':
			sc.inStr = false
			if sc.depth == 1 && sc.state == inKey {
				sc.state = wantColon
				return
			}
		}
		sc.keep(c)
		return
	}
	if sc.depth == 0 {
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == '{' && !sc.done:
			sc.depth, sc.state = 1, wantKey
		default:
			sc.bad = true
		}
		return
	}
	switch c {
	case ' ', '\t', '\n', '\r':
		return // never part of a value's text outside strings
	case '"':
		sc.inStr = true
		if sc.depth == 1 && sc.state == wantKey {
			sc.state, sc.key, sc.keyLong = inKey, sc.key[:0], false
			return
		}
	case ':':
		if sc.depth == 1 && sc.state == wantColon {
			sc.state, sc.capture, sc.val = inValue, sc.isIDKey(), sc.val[:0]
			return
		}
	case '{', '[':
		sc.depth++
	case '}', ']':
		if sc.depth == 1 {
			sc.endMember()
			sc.depth, sc.done = 0, true
			return
		}
		sc.depth--
	case ',':
		if sc.depth == 1 {
			sc.endMember()
			sc.state = wantKey
			return
		}
	}
	sc.keep(c)
}

// keep records c as part of the current key or the id's value.
func (sc *idScanner) keep(c byte) {
	switch {
	case sc.depth == 1 && sc.state == inKey:
		if len(sc.key) < maxKey {
			sc.key = append(sc.key, c)
		} else {
			sc.keyLong = true
		}
	case sc.capture && len(sc.val) <= MaxIDLength:
		sc.val = append(sc.val, c)
	}
}

func (sc *idScanner) isIDKey() bool {
	if sc.keyLong {
		return false
	}
	k, ok := rawjson.Key(sc.key)
	return ok && k == "id"
}

func (sc *idScanner) endMember() {
	if sc.capture {
		sc.id, sc.hasID = append(sc.id[:0], sc.val...), true
		sc.capture = false
	}
}

// ID returns the body's top-level id if it is a valid request id, else nil.
func (sc *idScanner) ID() json.RawMessage {
	if sc.bad || !sc.done || !sc.hasID {
		return nil
	}
	id, err := decodeID(sc.id)
	if err != nil || !json.Valid(id) || !utf8.Valid(id) {
		return nil
	}
	return json.RawMessage(string(id))
}

package nmclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gnosis/gnosis/host/chunk"
	"github.com/gnosis/gnosis/host/framing"
)

// header is what the client needs of a frame to route it.
type header struct {
	ID     json.RawMessage `json:"id"`
	OK     json.RawMessage `json:"ok"`
	Event  json.RawMessage `json:"event"`
	Chunk  *int            `json:"chunk"`
	Chunks int             `json:"chunks"`
}

// run is the chunked reply being received: its frames must be consecutive.
type run struct {
	id          string
	next, total int
}

// reader turns frames into messages, checking the protocol as it goes.
type reader struct {
	joiner chunk.Joiner
	open   *run
}

// read delivers the host's messages on msgs until its output ends.
func (c *Client) read() {
	defer c.out.Close()
	for {
		m, err := c.next()
		if err != nil {
			c.err = err
			close(c.msgs)
			return
		}
		c.msgs <- m
	}
}

// next reads frames until a message is complete or the output ends.
func (c *Client) next() (Message, error) {
	for {
		body, err := c.fr.Read()
		if err != nil {
			if errors.Is(err, io.EOF) && c.rd.open != nil {
				o := c.rd.open
				err = fmt.Errorf("output ended inside chunked reply %s (%d of %d chunks): %w", o.id, o.next, o.total, framing.ErrTruncated)
			}
			return Message{}, err
		}
		c.frames.Add(1)
		if n := int64(len(body)); n > c.largest.Load() {
			c.largest.Store(n)
		}
		t0 := time.Now()
		m, err := c.rd.frame(body, c.cfg.violate)
		c.decode.Add(int64(time.Since(t0)))
		if err != nil {
			return Message{}, err
		}
		if m != nil {
			return *m, nil
		}
	}
}

// frame takes one frame's body and returns the message it completes, if
// any. A violation ends the stream (err) unless violate is set, which then
// hears of it; a frame that cannot be used is dropped.
func (rd *reader) frame(body []byte, violate func(error)) (*Message, error) {
	fail := func(err error) error {
		if violate == nil {
			return err
		}
		violate(err)
		return nil
	}
	h, isChunk := chunkHeader(body)
	if !isChunk {
		if err := json.Unmarshal(body, &h); err != nil {
			return nil, fail(fmt.Errorf("frame is not a JSON object: %w: %s", err, clip(body)))
		}
	}
	if h.Chunk == nil {
		if rd.open != nil {
			if err := fail(fmt.Errorf("frame interleaved in chunked reply %s: %s", rd.open.id, clip(body))); err != nil {
				return nil, err
			}
		}
		return &Message{Body: body, ID: h.ID, Reply: h.ID != nil && (h.Event == nil || h.OK != nil), Frames: 1}, nil
	}
	id := string(h.ID)
	if rd.open == nil && *h.Chunk == 0 {
		rd.open = &run{id: id, total: h.Chunks}
	}
	if o := rd.open; o == nil || id != o.id || *h.Chunk != o.next || h.Chunks != o.total {
		want := run{}
		if o != nil {
			want = *o
		}
		rd.open, rd.joiner = nil, chunk.Joiner{}
		return nil, fail(fmt.Errorf("chunk %d/%d of id %s out of sequence (expected %d/%d of %s)", *h.Chunk, h.Chunks, id, want.next, want.total, want.id))
	}
	rd.open.next++
	msg, err := rd.joiner.Add(body)
	if err == nil && len(msg) > 0 && &msg[0] == &body[0] {
		// The Joiner found no chunk after all: the frame is not JSON.
		err = fmt.Errorf("frame is not a JSON object: %s", clip(body))
	}
	if err != nil {
		rd.open, rd.joiner = nil, chunk.Joiner{}
		return nil, fail(err)
	}
	if msg == nil {
		return nil, nil
	}
	rd.open = nil
	return &Message{Body: msg, ID: h.ID, Reply: true, Frames: h.Chunks}, nil
}

// chunkHeader reads a chunk frame's id, chunk and chunks, the members the
// host writes before "data", without scanning the data: the Joiner decodes
// the frame anyway, and a large reply is mostly data. ok is false when the
// frame does not start that way; the caller then decodes it whole.
func chunkHeader(body []byte) (h header, ok bool) {
	if !bytes.Contains(body[:min(len(body), 128)], []byte(`"chunk"`)) {
		return h, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return h, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return h, false
		}
		var dst any
		switch t {
		case "data":
			return h, h.ID != nil && h.Chunk != nil
		case "id":
			dst = &h.ID
		case "chunk":
			dst = &h.Chunk
		case "chunks":
			dst = &h.Chunks
		default:
			return h, false
		}
		if err := dec.Decode(dst); err != nil {
			return h, false
		}
	}
	return h, false
}

// clip shortens b for error messages.
func clip(b []byte) string {
	if len(b) > 400 {
		return fmt.Sprintf("%s... (%d bytes)", b[:400], len(b))
	}
	return string(b)
}

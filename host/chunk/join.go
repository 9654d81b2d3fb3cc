package chunk

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Frame is a chunk frame as decoded by a client.
type Frame struct {
	ID     json.RawMessage `json:"id"`
	Chunk  *int            `json:"chunk"`
	Chunks int             `json:"chunks"`
	Data   string          `json:"data"`
}

// Joiner reassembles chunked replies on the client side (the extension does
// the same in JavaScript; the CLI's call command and tests use this). Frames
// of one reply are consecutive, but a Joiner tolerates interleaving by id.
type Joiner struct {
	pending map[string]*partial
}

type partial struct {
	next  int
	total int
	buf   bytes.Buffer
}

// Add takes one frame's body. When it is an ordinary message it is returned
// as is; when it completes a chunked reply, the reply's JSON is returned;
// otherwise (a chunk of an unfinished reply) msg is nil.
func (j *Joiner) Add(body []byte) (msg []byte, err error) {
	var f Frame
	if err := json.Unmarshal(body, &f); err != nil || f.Chunk == nil {
		return body, nil // not a chunk: let the caller judge it
	}
	if j.pending == nil {
		j.pending = make(map[string]*partial)
	}
	key := string(f.ID)
	p := j.pending[key]
	if p == nil {
		p = &partial{total: f.Chunks}
		j.pending[key] = p
	}
	if *f.Chunk != p.next || f.Chunks != p.total || f.Chunks <= 0 {
		delete(j.pending, key)
		return nil, fmt.Errorf("chunk %d/%d of id %s out of order (expected %d/%d)", *f.Chunk, f.Chunks, key, p.next, p.total)
	}
	p.buf.WriteString(f.Data)
	p.next++
	if p.next < p.total {
		return nil, nil
	}
	delete(j.pending, key)
	return p.buf.Bytes(), nil
}

package session

import (
	"encoding/json"
	"io"

	"github.com/gnosis/gnosis/host/chunk"
	"github.com/gnosis/gnosis/host/framing"
)

// message is one outbound message: a reply or an event, as JSON text, and
// the id its chunk frames carry if it must be chunked.
type message struct {
	id   json.RawMessage
	body []byte
}

// writer owns the output stream. It is the only code that writes to it.
type writer struct {
	out   io.Writer
	limit int
	buf   []byte
}

// write sends one message: as one frame if it fits, else as consecutive
// chunk frames.
func (w *writer) write(m message) error {
	if len(m.body) <= w.limit {
		return w.frame(m.body)
	}
	id := m.id
	if len(id) == 0 {
		id = nullID
	}
	return chunk.Each(id, m.body, w.limit, w.frame)
}

// frame writes length and body with a single Write call.
func (w *writer) frame(body []byte) error {
	w.buf = framing.Append(w.buf[:0], body)
	_, err := w.out.Write(w.buf)
	if cap(w.buf) > 2*w.limit+8 {
		w.buf = nil // do not pin a large buffer after an unusual frame
	}
	return err
}

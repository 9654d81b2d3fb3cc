package mcpprovider

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/gnosis/gnosis/runtime/rawjson"
)

// DefaultMaxMessage bounds one message from a server: one line of its
// stdout, so the largest result a call can return (64 MiB, the size of the
// largest message the browser may send the host). A longer line is skipped
// as it is read, never held whole: the call it answers fails with
// EXECUTION_ERROR, details.reason "result-too-large", and the provider keeps
// serving. It is also the most a provider holds of large messages read and
// not yet dealt with (a result being checked and written to the browser):
// past that, its reader waits and the server's output waits in the pipe.
const DefaultMaxMessage = 64 << 20

// message is one line read from the server.
type message struct {
	text []byte     // the line without its newline, in a buffer of its own (results alias it)
	held int64      // bytes of the transport's budget it holds (a line past the reader's buffer)
	over *oversized // the line was longer than the maximum: it was skipped, text is nil
}

// oversized is what is known of a skipped line: its length and the
// members that say which request it answers.
type oversized struct {
	size    int64
	members *rawjson.Members
}

// tooLargeError is the error a call's answer receives when the server's
// answer was longer than the maximum.
type tooLargeError struct{ size, limit int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("the server answered with a message of %d bytes, above the %d-byte limit for one message", e.size, e.limit)
}

// readLine reads the next line. A line that fits the reader's buffer is
// copied out at once; a longer one counts against t.large as it grows,
// waiting for room (the reader then stops reading the server), and one past
// t.maxMessage is skipped (skipLine). It fails when the transport closes
// while it waits, or with the reader's error (io.EOF at the end).
func (t *pipeTransport) readLine(br *bufio.Reader) (message, error) {
	frag, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return message{text: trimEOL(append([]byte(nil), frag...))}, err
	}
	var buf bytes.Buffer
	var held int64
	for {
		if int64(buf.Len()+len(frag)) > t.maxMessage {
			t.large.Return(held)
			return skipLine(br, buf.Bytes(), frag, err)
		}
		if werr := t.large.Acquire(t.closing, int64(len(frag))); werr != nil {
			t.large.Return(held)
			return message{}, fmt.Errorf("waiting for room for a large message: %w", context.Cause(t.closing))
		}
		held += int64(len(frag))
		buf.Write(frag)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return message{text: trimEOL(buf.Bytes()), held: held}, err
		}
		frag, err = br.ReadSlice('\n')
	}
}

// skipLine reads the rest of a line too long to keep, after have and frag,
// keeping only its "id" and "method" members.
func skipLine(br *bufio.Reader, have, frag []byte, err error) (message, error) {
	m := &rawjson.Members{Keys: []string{"id", "method"}, Max: 256}
	m.Write(have)
	m.Write(frag)
	size := int64(len(have) + len(frag))
	for errors.Is(err, bufio.ErrBufferFull) {
		frag, err = br.ReadSlice('\n')
		m.Write(frag)
		size += int64(len(frag))
	}
	return message{over: &oversized{size: size, members: m}}, err
}

// dropOversized fails the request a skipped line answered, if any.
func (t *pipeTransport) dropOversized(o *oversized) {
	ev := t.log.Warn().Int64("bytes", o.size).Int64("limit", t.maxMessage)
	id, hasID := o.members.Value("id")
	if _, isRequest := o.members.Value("method"); isRequest || !hasID {
		ev.Msg("skipped a message from the server above the size limit")
		return
	}
	_, key, ok := responseID(id)
	if !ok {
		ev.Msg("skipped a message from the server above the size limit, with an unreadable id")
		return
	}
	t.mu.Lock()
	answer := t.pending[key]
	delete(t.pending, key)
	t.mu.Unlock()
	ev.Str("request", key).Bool("pending", answer != nil).Msg("skipped an answer from the server above the size limit")
	if answer != nil {
		answer(nil, &tooLargeError{size: o.size, limit: t.maxMessage})
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

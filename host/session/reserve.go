package session

import (
	"context"
	"fmt"
	"time"

	"github.com/gnosis/gnosis/runtime/wire"
)

// MaxReplyBytes bounds the bytes methods reserve for the replies they are
// building (budget.Reserve), or limits.inflightBytes when that is smaller.
// Replies leave one at a time through one pipe, so a few being built at
// once keep it busy; more would only hold memory. A single reply larger
// than the budget still goes, alone.
const MaxReplyBytes = 64 << 20

// ReserveWait bounds how long a method's reply reservation waits for room
// before the method is refused OVERLOADED. Room comes back as earlier
// replies are written, as fast as the browser reads them.
const ReserveWait = 30 * time.Second

// reserve is the reserver a request's method finds in its context: it
// counts n bytes of the reply about to be built against the reply budget
// (MaxReplyBytes), waiting while the budget is full, and the bytes come back
// once the reply is written. A method that builds a large reply
// (workspace.read) calls it first, so many such requests at once wait their
// turn instead of all building their replies at the same time.
func (p *pending) reserve(ctx context.Context, n int64) error {
	s := p.s
	wait, cancel := context.WithTimeout(ctx, ReserveWait)
	defer cancel()
	if err := s.replies.Acquire(wait, n); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		held, limit := s.replies.Held(), s.replies.Limit()
		s.log.Warn().RawJSON("id", p.id).Int64("bytes", n).Int64("held", held).Int64("limit", limit).Msg("reply refused: replies being built hold too many bytes")
		return &wire.Error{Code: wire.CodeOverloaded, Message: fmt.Sprintf(
			"replies being built hold %d bytes and this one needs %d more, above the %d-byte limit for replies in flight, and no room came in %s; retry when earlier ones finish",
			held, n, limit, ReserveWait)}
	}
	p.reserved.Add(n)
	return nil
}

package session

import (
	"context"
	"fmt"
	"time"

	"github.com/gnosis/gnosis/runtime/wire"
)

// ReserveWait bounds how long a method's reply reservation (budget.Reserve)
// waits for room in the in-flight budget before the method is refused
// OVERLOADED. Room comes back as earlier replies are written, as fast as the
// browser reads them.
const ReserveWait = 30 * time.Second

// reserve is the reserver a request's method finds in its context: it
// counts n bytes of the reply about to be built against the in-flight
// budget, waiting while the budget is full, and the bytes come back once the
// reply is written. A method that builds a large reply (workspace.read)
// calls it first, so many such requests at once wait their turn instead of
// all building their replies at the same time.
func (p *pending) reserve(ctx context.Context, n int64) error {
	s := p.s
	wait, cancel := context.WithTimeout(ctx, ReserveWait)
	defer cancel()
	if err := s.bytes.Acquire(wait, n); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		held, limit := s.bytes.Held(), s.bytes.Limit()
		s.log.Warn().RawJSON("id", p.id).Int64("bytes", n).Int64("held", held).Int64("limit", limit).Msg("reply refused: replies in flight hold too many bytes")
		return &wire.Error{Code: wire.CodeOverloaded, Message: fmt.Sprintf(
			"requests and replies in flight hold %d bytes and this reply needs %d more, above the %d-byte limit (limits.inflightBytes), and no room came in %s; retry when earlier ones finish",
			held, n, limit, ReserveWait)}
	}
	p.reserved.Add(n)
	return nil
}

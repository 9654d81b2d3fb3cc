package mcpprovider

import (
	"bufio"
	"errors"
	"io"
	"os"

	"github.com/rs/zerolog"

	"github.com/gnosis/gnosis/runtime"
)

// maxStderrLine bounds one logged line of the child's stderr; longer lines
// are split.
const maxStderrLine = 8 << 10

// logStderr logs the child's stderr line by line until every writer closed
// it, and keeps the last lines in tail (a line longer than maxStderrLine is
// kept by its beginning only). It never stops reading early: a full pipe
// would block the child.
func logStderr(log zerolog.Logger, r *os.File, tail *stderrTail) {
	defer tail.close()
	defer r.Close()
	br := bufio.NewReaderSize(r, maxStderrLine)
	continued := false // the last piece read did not end its line
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if n := len(line); line[n-1] == '\n' {
				line = line[:n-1]
				if n > 1 && line[n-2] == '\r' {
					line = line[:n-2]
				}
			}
			log.Info().Str("stream", "stderr").Msg(runtime.RedactText(string(line)))
			if !continued {
				tail.add(line)
			}
		}
		continued = errors.Is(err, bufio.ErrBufferFull)
		if err != nil && !continued {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				log.Debug().Err(err).Msg("reading child stderr")
			}
			return
		}
	}
}

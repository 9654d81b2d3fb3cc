package nmclient

import (
	"io"

	"github.com/gnosis/gnosis/host/framing"
	"github.com/gnosis/gnosis/host/launch"
)

// Option configures how Start launches and reads the host.
type Option func(*config)

type config struct {
	launcher []string
	origin   string
	args     []string
	env      []string
	dir      string
	stderr   io.Writer
	maxFrame int
	violate  func(error)
	inline   bool
}

func defaults() config {
	return config{origin: launch.OurOrigin, maxFrame: framing.MaxOutbound}
}

// WithOrigin sets argv[1], the caller origin Chrome passes (our extension's
// origin by default); tests use it to play a foreign extension.
func WithOrigin(origin string) Option { return func(c *config) { c.origin = origin } }

// WithArgs appends arguments after the origin, such as the
// --parent-window=0 Chrome adds on Windows.
func WithArgs(args ...string) Option {
	return func(c *config) { c.args = append(c.args, args...) }
}

// WithLauncher runs the host through a launcher program, such as Wine's
// loader for the Windows build: the command becomes prog, args, the host
// binary, then the origin and WithArgs.
func WithLauncher(prog string, args ...string) Option {
	return func(c *config) { c.launcher = append([]string{prog}, args...) }
}

// WithEnv sets the host's whole environment (nil, the default, inherits
// ours, as a browser's child does).
func WithEnv(env []string) Option { return func(c *config) { c.env = env } }

// WithDir sets the working directory (the host binary's folder by default,
// as Chrome does).
func WithDir(dir string) Option { return func(c *config) { c.dir = dir } }

// WithStderr sends the host's log (stderr) to w; it is discarded by default.
func WithStderr(w io.Writer) Option { return func(c *config) { c.stderr = w } }

// WithMaxFrame sets the largest frame read from the host (framing.MaxOutbound,
// Chrome's limit, by default). A larger frame ends the conversation.
func WithMaxFrame(n int) Option { return func(c *config) { c.maxFrame = n } }

// WithViolations makes protocol violations that leave the stream readable
// (a frame that is not a JSON object, a chunk out of sequence, a frame
// interleaved in a chunked reply) go to report, a frame that cannot be used
// dropped,
// instead of ending the conversation. report runs on the reading goroutine.
func WithViolations(report func(error)) Option { return func(c *config) { c.violate = report } }

// WithInlineReads makes Await and Call read the host's output on the
// caller's goroutine instead of a reading goroutine, sparing a hand-off per
// message: the benchmark measures the host's latency, not ours. Messages is
// then nil, Await's deadline is not watched (pass nil), and one goroutine at
// a time may await.
func WithInlineReads() Option { return func(c *config) { c.inline = true } }

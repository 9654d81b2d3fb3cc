package runtime

import "context"

// Progress is one progress report of a call in flight, as an MCP server
// sends it in notifications/progress.
type Progress struct {
	// Progress only grows during a call; it may be a fraction.
	Progress float64
	// Total is the value Progress reaches at the end, nil when unknown.
	Total *float64
	// Message says what the call is doing, "" when the server said nothing.
	Message string
}

type progressKey struct{}

// WithProgress returns a context that carries report to the provider of a
// call made with it (Execute passes its ctx to Provider.Call). A provider
// that can report progress calls report for each report it receives, in
// order, one at a time, and never after Call returns. report must return
// quickly: it runs on the goroutine that reads the provider's messages.
func WithProgress(ctx context.Context, report func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ProgressFrom returns the report function WithProgress put in ctx, nil if
// there is none.
func ProgressFrom(ctx context.Context) func(Progress) {
	f, _ := ctx.Value(progressKey{}).(func(Progress))
	return f
}

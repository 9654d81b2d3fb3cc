package mcpprovider

import (
	"math"
	"sync"

	"github.com/gnosis/gnosis/runtime"
	"github.com/mark3labs/mcp-go/mcp"
)

// progressRoutes sends each notifications/progress to the call whose
// progress token it names. Every tools/call carries a token (its own request
// id), so servers report progress; a call registers a route only when its
// caller wants the reports, and a report for no route is dropped.
type progressRoutes struct {
	mu     sync.Mutex
	routes map[string]func(runtime.Progress)
}

// add routes token's reports to report until remove.
func (r *progressRoutes) add(token string, report func(runtime.Progress)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.routes == nil {
		r.routes = map[string]func(runtime.Progress){}
	}
	r.routes[token] = report
}

func (r *progressRoutes) remove(token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.routes, token)
}

// deliver hands a notifications/progress to its route. It runs on the
// transport's reader, so reports reach a call in the order the server sent
// them, and all of them before the call's result.
func (r *progressRoutes) deliver(n mcp.JSONRPCNotification) {
	f := n.Params.AdditionalFields
	token, ok := f["progressToken"].(string)
	if !ok {
		return // ours are strings: a number is someone else's
	}
	r.mu.Lock()
	report := r.routes[token]
	r.mu.Unlock()
	if report == nil {
		return
	}
	p, ok := finite(f["progress"])
	if !ok {
		return // progress is required
	}
	out := runtime.Progress{Progress: p}
	if total, ok := finite(f["total"]); ok {
		out.Total = &total
	}
	out.Message, _ = f["message"].(string)
	report(out)
}

// finite returns v as a number when it is a finite JSON number.
func finite(v any) (float64, bool) {
	x, ok := v.(float64)
	if !ok || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, false
	}
	return x, true
}

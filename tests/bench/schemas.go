package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// The figures of schema checking: a tool with an outputSchema and a ~8 KB
// structured result (the host validates every result), and the memory a
// schema past the host's bounds costs. Both use fakemunim's forecast and
// bad-schema tools (tests/fakemunim/schemacases.go); other servers skip
// them.

// schemaRSSMargin is the target of the bad-schema figure: the host's peak
// RSS with a 10 MB / 200,000-pattern schema listed at most this much above
// the same host without it (before the bounds, 2.88 GB).
const schemaRSSMargin = 100e6

// withEnv is s with extra environment for its server, or ok false when s
// is not fakemunim.
func withEnv(s server, env ...string) (server, bool) {
	if !strings.HasPrefix(s.name, "fakemunim") {
		return s, false
	}
	s.env = append(append([]string(nil), s.env...), env...)
	return s, true
}

// outputLatency alternates batches of direct forecast calls, host executes
// of bench.forecast (its structuredContent checked against its
// outputSchema) and host health round trips, as latency does for echo.
func outputLatency(b binaries, dir string, s server, rounds, batch int) ([]row, error) {
	s, fake := withEnv(s, "FAKEMUNIM_FORECAST=1")
	if !fake {
		return nil, nil
	}
	size := 0
	t, err := execLatency(b, dir, s, "forecast", map[string]any{"hours": 44}, rounds, batch, func(res *mcp.CallToolResult, rep []byte) error {
		if res.StructuredContent == nil {
			return fmt.Errorf("forecast returned no structuredContent")
		}
		size = resultSize(rep)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return []row{t.row(fmt.Sprintf("execute p50 with outputSchema, %.1f KB structured result ÷ (direct p50 + host health p50), n=%d each", float64(size)/1e3, len(t.exec)))}, nil
}

// resultSize is the size of an execute reply's result.
func resultSize(reply []byte) int {
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	json.Unmarshal(reply, &r)
	return len(r.Result)
}

// schemaRSS starts the host on fakemunim with and without its bad-schema
// tools and reads each host's peak RSS (VmHWM) once its tools are listed,
// their schemas compiled (the bad ones listed unavailable), and one call
// to huge_schema refused.
func schemaRSS(b binaries, dir string, s server) ([]row, error) {
	bad, fake := withEnv(s, "FAKEMUNIM_BAD_SCHEMAS=1")
	if !fake {
		return nil, nil
	}
	peak := func(s server, huge bool) (int, error) {
		h, err := startReady(b, dir, &s)
		if err != nil {
			return 0, err
		}
		defer h.close()
		if huge {
			if err := awaitUnavailable(h, "bench.huge_schema"); err != nil {
				return 0, err
			}
			rep, err := h.call("execute", map[string]any{"capability": "bench.huge_schema", "arguments": map[string]any{}})
			if err != nil {
				return 0, err
			}
			if !strings.Contains(string(rep), `"invalid-schema"`) {
				return 0, fmt.Errorf("huge_schema was not refused: %.300s", rep)
			}
		} else {
			if _, err := h.call("execute", map[string]any{"capability": "bench." + s.echo, "arguments": s.echoArgs}); err != nil {
				return 0, err
			}
		}
		return procBytes(h.c.Pid(), "VmHWM")
	}
	with, err := peak(bad, true)
	if err != nil {
		return nil, err
	}
	without, err := peak(s, false)
	if err != nil {
		return nil, err
	}
	return []row{{
		what:     "peak RSS with a 10 MB / 200,000-pattern input schema listed (refused by the schema bounds) vs without",
		host:     fmt.Sprintf("%.1f MB", float64(with)/1e6),
		baseline: fmt.Sprintf("%.1f MB without", float64(without)/1e6),
		target:   fmt.Sprintf("≤ baseline + %.0f MB", schemaRSSMargin/1e6),
		pass:     verdict(float64(with) <= float64(without)+schemaRSSMargin),
	}}, nil
}

// awaitUnavailable waits until capabilities.list marks name unavailable
// (its schema compiled, in the background after discovery).
func awaitUnavailable(h *hostClient, name string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		rep, err := h.call("capabilities.list", nil)
		if err != nil {
			return err
		}
		var l struct {
			Capabilities []struct {
				Name        string `json:"name"`
				Unavailable string `json:"unavailable"`
			} `json:"capabilities"`
		}
		json.Unmarshal(rep, &l)
		for _, c := range l.Capabilities {
			if c.Name == name && c.Unavailable != "" {
				return nil
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("%s not listed unavailable in 60 s", name)
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Validation never holds the host (issue 39): the health round trip while
// a 1,000-item catastrophic call validates, beside the same round trip
// with nothing validating, in alternating batches on one host; and the
// peak RSS of a host given 50 MB of arguments that its validator must
// read whole (uniqueItems over 5.2 million integers, a pattern over one
// 50 MB string), beside the request's size.
const (
	// healthTarget bounds health's p50 while a call validates, as a
	// multiple of its p50 with nothing validating.
	healthTarget = 2.0
	// memoryTarget bounds a call's peak RSS as a multiple of its request's
	// size (docs/validation.md, "Memory").
	memoryTarget = 8.0
	// bigRequest is the size of the memory cases' requests.
	bigRequest = 50e6
)

// schemaTools writes fakemunim's FAKEMUNIM_SCHEMAS file and returns the
// host's configuration for that fakemunim, prefix "bench".
func schemaTools(b binaries, dir string, tools map[string]any) (map[string]any, error) {
	raw, err := json.Marshal(tools)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, fmt.Sprintf("schemas-%d.json", configs.Add(1)))
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		return nil, err
	}
	return map[string]any{"providers": []map[string]any{{
		"name": "bench", "command": b.fake, "prefix": "bench", "timeout": "300s",
		"env": map[string]string{"FAKEMUNIM_SCHEMAS": file},
	}}}, nil
}

// validation runs both.
func validation(b binaries, dir string, rounds, batch int) ([]row, error) {
	var rows []row
	for _, c := range []struct{ pattern, what string }{
		{`^(a+)+$`, "the issue's ^(a+)+$ (the linear engine)"},
		{`^(?=a)(a+)+$`, "^(?=a)(a+)+$ (backtracking: each call spends its budget)"},
	} {
		r, err := healthWhileValidating(b, dir, c.pattern, c.what, rounds, batch)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	m, err := validationMemory(b, dir)
	if err != nil {
		return nil, err
	}
	return append(rows, m...), nil
}

// healthWhileValidating measures health's round trip in alternating
// batches: with nothing else in flight, and with a call of 1,000 items
// that meet pattern always validating (a new one sent as soon as the last
// is answered).
func healthWhileValidating(b binaries, dir, pattern, what string, rounds, batch int) (row, error) {
	cfg, err := schemaTools(b, dir, map[string]any{"fill": map[string]any{"inputSchema": map[string]any{
		"type": "object", "properties": map[string]any{"items": map[string]any{"type": "array", "items": map[string]any{"type": "string", "pattern": pattern}}},
	}}})
	if err != nil {
		return row{}, err
	}
	h, err := launchConfig(b, dir, cfg)
	if err != nil {
		return row{}, err
	}
	defer h.close()
	if err := h.awaitOK(); err != nil {
		return row{}, err
	}
	items := make([]string, 1000)
	for i := range items {
		items[i] = strings.Repeat("a", 40) + "!"
	}
	// The call's params are encoded once: the client's own work per call
	// must not weigh on the health round trips it measures.
	params, err := json.Marshal(map[string]any{"capability": "bench.fill", "arguments": map[string]any{"items": items}})
	if err != nil {
		return row{}, err
	}
	var idle, busy []time.Duration
	inflight := ""
	calls := 0
	send := func() error {
		calls++
		inflight = fmt.Sprintf(`"cat-%d"`, calls)
		body := make([]byte, 0, len(params)+64)
		body = append(body, `{"id":`+inflight+`,"method":"execute","params":`...)
		body = append(append(body, params...), '}')
		return h.c.Send(body)
	}
	// health sends one health request and reads until its reply, sending
	// a new catastrophic call whenever the last is answered (when busy).
	health := func(busy bool) (time.Duration, error) {
		t0 := time.Now()
		id, err := h.c.Request("health", nil)
		if err != nil {
			return 0, err
		}
		deadline := time.After(2 * time.Minute)
		for {
			select {
			case m, open := <-h.c.Messages():
				if !open {
					return 0, fmt.Errorf("host output ended: %w", h.c.Err())
				}
				if !m.Reply {
					continue
				}
				switch string(m.ID) {
				case id:
					return time.Since(t0), nil
				case inflight:
					inflight = ""
					if !bytes.Contains(m.Body, []byte(`"code":"INVALID_ARGUMENTS"`)) && !bytes.Contains(m.Body, []byte(`"code":"TOO_COSTLY"`)) {
						return 0, fmt.Errorf("the catastrophic call: %.200s", m.Body)
					}
					if busy {
						if err := send(); err != nil {
							return 0, err
						}
					}
				}
			case <-deadline:
				return 0, fmt.Errorf("no health reply within 2 minutes")
			}
		}
	}
	drain := func() error {
		for inflight != "" {
			if _, err := health(false); err != nil {
				return err
			}
		}
		return nil
	}
	for range 20 { // warm up
		if _, err := health(false); err != nil {
			return row{}, err
		}
	}
	for range rounds {
		for range batch {
			d, err := health(false)
			if err != nil {
				return row{}, err
			}
			idle = append(idle, d)
		}
		if err := send(); err != nil {
			return row{}, err
		}
		for range batch {
			d, err := health(true)
			if err != nil {
				return row{}, err
			}
			busy = append(busy, d)
		}
		if err := drain(); err != nil {
			return row{}, err
		}
	}
	ip, bp := pct(idle, 50), pct(busy, 50)
	ratio := float64(bp) / float64(ip)
	return row{
		what:     fmt.Sprintf("health p50 while a 1,000-item call validates ÷ idle p50, %s, n=%d each, %d calls", what, len(busy), calls),
		host:     fmt.Sprintf("%.2f×", ratio),
		baseline: fmt.Sprintf("busy %v (p99 %v), idle %v (p99 %v)", bp.Round(time.Microsecond), pct(busy, 99).Round(time.Microsecond), ip.Round(time.Microsecond), pct(idle, 99).Round(time.Microsecond)),
		target:   fmt.Sprintf("≤ %.0f×", healthTarget),
		pass:     verdict(ratio <= healthTarget),
	}, nil
}

// validationMemory gives a fresh host each 50 MB case, and one a call of
// the same tools with small arguments, and compares the peak RSS with the
// request's size.
func validationMemory(b binaries, dir string) ([]row, error) {
	cfg := func() (map[string]any, error) {
		return schemaTools(b, dir, map[string]any{
			"unique": map[string]any{"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"items": map[string]any{"type": "array", "uniqueItems": true, "items": map[string]any{"type": "integer"}}}}},
			"text":   map[string]any{"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"s": map[string]any{"type": "string", "pattern": "^[a-z]+$"}}}},
		})
	}
	// 5.2 million distinct integers of 8 or 9 digits: 50 MB of JSON.
	var ints bytes.Buffer
	ints.WriteString(`{"items":[`)
	for i := 0; ints.Len() < bigRequest-20; i++ {
		if i > 0 {
			ints.WriteByte(',')
		}
		ints.WriteString(strconv.Itoa(10_000_000 + i*7))
	}
	ints.WriteString(`]}`)
	text := `{"s":"` + strings.Repeat("a", bigRequest-10) + `"}`
	cases := []struct {
		what string
		tool string
		args json.RawMessage
	}{
		{"uniqueItems over 5.2 million integers", "unique", ints.Bytes()},
		{"a pattern over one 50 MB string", "text", json.RawMessage(text)},
	}
	c, err := cfg()
	if err != nil {
		return nil, err
	}
	small, err := peakOf(b, dir, c, 1, "execute", map[string]any{"capability": "bench.unique", "arguments": json.RawMessage(`{"items":[1,2,3]}`)})
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, cs := range cases {
		c, err := cfg()
		if err != nil {
			return nil, err
		}
		params := map[string]any{"capability": "bench." + cs.tool, "arguments": cs.args}
		size := len(cs.args) + 60
		peak, err := peakOf(b, dir, c, 1, "execute", params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cs.what, err)
		}
		ratio := float64(peak) / float64(size)
		rows = append(rows, row{
			what:     fmt.Sprintf("peak RSS, %s (a %s request, valid: it reaches the server)", cs.what, mb(size)),
			host:     fmt.Sprintf("%s = %.1f× the request", mb(peak), ratio),
			baseline: "a small call " + mb(small),
			target:   fmt.Sprintf("≤ %.0f× the request", memoryTarget),
			pass:     verdict(ratio <= memoryTarget),
		})
	}
	return rows, nil
}

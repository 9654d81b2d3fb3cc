package schema

import (
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"
)

// manyPatterns is a schema with n properties, each with a pattern.
func manyPatterns(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string","pattern":"^[a-z]{1,8}-%d$"}`, i, i)
	}
	b.WriteString(`}}`)
	return json.RawMessage(b.String())
}

// padded is a schema of about n bytes: one pattern, the rest a description.
func padded(n int) json.RawMessage {
	return json.RawMessage(`{"type":"object","description":"` + strings.Repeat("x", n) + `"}`)
}

// allocated is the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	fn()
	goruntime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestSchemasPastTheBoundsFailFastWithBoundedMemory(t *testing.T) {
	// Issue 21's case: 10 MB and 200,000 patterns.
	huge := manyPatterns(200_000)
	if len(huge) < 10e6 {
		t.Fatalf("the huge schema is only %d bytes", len(huge))
	}
	tests := []struct {
		name     string
		schema   json.RawMessage
		want     string
		maxAlloc uint64
	}{
		{"10 MB with 200,000 patterns", huge, fmt.Sprintf("schema is %d bytes, more than the 1048576 allowed", len(huge)), 64 << 10},
		{"just over the size bound", padded(MaxSchemaBytes), fmt.Sprintf("schema is %d bytes, more than the 1048576 allowed", MaxSchemaBytes+34), 64 << 10},
		{"more patterns than allowed", manyPatterns(MaxSchemaPatterns + 1), "schema has more than 1000 patterns", 16 << 20},
		{"patterns longer than allowed in all", json.RawMessage(`{"properties":{"a":{"pattern":"` + strings.Repeat("a", MaxSchemaPatternBytes+1) + `"}}}`),
			"schema's patterns are longer than 65536 bytes in all", 16 << 20},
		{"more members than allowed", json.RawMessage(`{"enum":[` + strings.TrimSuffix(strings.Repeat(`{"a":1,"b":2},`, MaxSchemaMembers/2+1), ",") + `]}`),
			"schema has more than 50000 object members (keywords and names)", 64 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = NewCompiler().Compile(tt.schema) })
			if err == nil || err.Error() != tt.want {
				t.Errorf("compile error %v, want %q", err, tt.want)
			}
			if n > tt.maxAlloc {
				t.Errorf("compiling allocated %d bytes, want at most %d", n, tt.maxAlloc)
			}
		})
	}
}

func TestSchemasWithinTheBoundsCompile(t *testing.T) {
	for name, schema := range map[string]json.RawMessage{
		"1000 patterns":         manyPatterns(MaxSchemaPatterns),
		"just under 1 MiB":      padded(MaxSchemaBytes - 100),
		"an empty schema":       json.RawMessage(`{}`),
		"a boolean schema true": json.RawMessage(`true`),
	} {
		if _, err := NewCompiler().Compile(schema); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

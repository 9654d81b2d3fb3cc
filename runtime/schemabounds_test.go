package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gnosis/gnosis/internal/testwait"
	"github.com/gnosis/gnosis/runtime/wire"
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
			n := allocated(func() { _, err = NewValidator().Compile(tt.schema) })
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
		if _, err := NewValidator().Compile(schema); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestAPatternGoCannotCompileIsDroppedWithAWarning(t *testing.T) {
	// zod-to-json-schema's e-mail pattern uses lookaheads, which RE2 lacks.
	schema := `{"type":"object","properties":{"email":{"type":"string","pattern":"^(?!\\.)(?!.*\\.\\.)[A-Za-z0-9_'+\\-\\.]*@x$"}},` +
		`"patternProperties":{"^(?=n)":{"type":"integer"}},"additionalProperties":false}`
	s, err := NewValidator().Compile(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`/patternProperties: "^(?=n)" is not supported (error parsing regexp: invalid or unsupported Perl syntax: ` + "`(?=`" + `); the properties it names are not checked`,
		`/additionalProperties: not checked, as a pattern beside it is not supported`,
		`/properties/email/pattern: "^(?!\\.)(?!.*\\.\\.)[A-Za-z0-9_'+\\-\\.]*@x$" is not supported (error parsing regexp: invalid or unsupported Perl syntax: ` + "`(?!`" + `); that pattern is not checked`,
	}
	if diff := cmp.Diff(want, s.(interface{ Warnings() []string }).Warnings()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if vs, _ := s.Validate(json.RawMessage(`{"email":"anything","n1":"x"}`)); len(vs) != 0 {
		t.Errorf("violations %v", vs)
	}
	if vs, _ := s.Validate(json.RawMessage(`{"email":5}`)); len(vs) != 1 || vs[0].Keyword != "type" {
		t.Errorf("the rest of the schema is not checked: %v", vs)
	}
}

func TestToolsWhoseSchemaCannotBeUsedAreUnavailableAndNeverCalled(t *testing.T) {
	tools := []Tool{
		{Name: "huge", InputSchema: manyPatterns(200_000)},
		{Name: "cyclic", InputSchema: json.RawMessage(`{"$ref":"#/$defs/a","$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"$ref":"#/$defs/a"}}}`)},
		{Name: "bad_output", InputSchema: json.RawMessage(`{"type":"object"}`),
			Raw: json.RawMessage(`{"name":"bad_output","outputSchema":{"$ref":"#"}}`)},
		clickTool,
	}
	f := newFake("munim", "computer", tools...)
	r := started(t, nil, f)
	want := map[string]string{
		"computer.huge":       fmt.Sprintf("its inputSchema cannot be used: schema is %d bytes, more than the 1048576 allowed", len(tools[0].InputSchema)),
		"computer.cyclic":     `its inputSchema cannot be used: schema cannot be evaluated: "#/$defs/b" leads back to "#/$defs/a" without consuming input`,
		"computer.bad_output": `its outputSchema cannot be used: schema cannot be evaluated: "#" leads back to "#" without consuming input`,
	}
	for name, why := range want {
		_, err := r.Execute(context.Background(), Call{Capability: name, Arguments: json.RawMessage(`{}`)})
		var e *wire.Error
		if !errors.As(err, &e) || e.Code != wire.CodeExecutionError || e.Message != name+" is unavailable: "+why {
			t.Errorf("%s: execute = %v, want EXECUTION_ERROR %q", name, err, name+" is unavailable: "+why)
		} else if d, _ := json.Marshal(e.Details); string(d) != `{"reason":"invalid-schema"}` {
			t.Errorf("%s: details %s", name, d)
		}
	}
	if n := f.callCount(); n != 0 {
		t.Errorf("the server was called %d times", n)
	}
	// The list is rebuilt when the background compilation ends.
	testwait.Until(t, 10*time.Second, func() error {
		got := map[string]string{}
		for _, s := range r.List() {
			if s.Unavailable != "" {
				got[s.Name] = s.Unavailable
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			return fmt.Errorf("unavailable capabilities (-want +got):\n%s", diff)
		}
		return nil
	})
	// Once listed unavailable, a call is refused before any schema work.
	_, err := r.Execute(context.Background(), Call{Capability: "computer.cyclic"})
	var e *wire.Error
	if !errors.As(err, &e) || e.Code != wire.CodeExecutionError {
		t.Errorf("cyclic after listing: %v", err)
	}
}

package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"github.com/gnosis/gnosis/runtime/schema/regex"
	ref "github.com/santhosh-tekuri/jsonschema/v6"
)

// The differential test: generated MCP-like tool schemas and boundary
// instances, each judged by this package and by
// github.com/santhosh-tekuri/jsonschema/v6 (a validator that passes the
// official suite, used only in tests), which must agree. The reference
// runs patterns through the same ECMA-262 engine, so that a disagreement
// is one of validation, not of regular expression dialect.

// refVerdict is the reference's verdict, or an error when it cannot
// compile the schema.
func refVerdict(schema, instance []byte) (bool, error) {
	c := ref.NewCompiler()
	c.DefaultDraft(ref.Draft2020)
	c.AssertFormat()
	c.UseRegexpEngine(func(s string) (ref.Regexp, error) {
		re, err := regex.Compile(s)
		if err != nil {
			return nil, err
		}
		return refRegexp{re}, nil
	})
	doc, err := ref.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return false, err
	}
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		return false, err
	}
	s, err := c.Compile("mem://schema.json")
	if err != nil {
		return false, err
	}
	v, err := ref.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return false, err
	}
	return s.Validate(v) == nil, nil
}

type refRegexp struct{ re *regex.Regexp }

func (r refRegexp) String() string { return r.re.String() }
func (r refRegexp) MatchString(s string) bool {
	ok, _ := r.re.Match(s, &Budget{Steps: 1 << 40})
	return ok
}

// knownDisagreement says why the two validators may differ on a case
// where the reference is the one that is wrong, "" when they must agree.
// Each reason is one the differential run found, and is confirmed by
// judging the case again with this package made to share the reference's
// flaw: the verdicts must then agree.
//
//   - "uri" and "uri-reference": the reference checks them with net/url,
//     which takes characters RFC 3986 does not allow (a space, "<", a
//     backslash, any non-ASCII character: those make an IRI); this
//     package refuses them.
func knownDisagreement(schema, instance []byte, want bool) string {
	lenient := map[string]formatCheck{}
	for k, v := range formatChecks {
		lenient[k] = v
	}
	lenient["uri"] = formatCheck{valid: func(s string) bool { u, err := url.Parse(s); return err == nil && u.IsAbs() }}
	lenient["uri-reference"] = formatCheck{valid: func(s string) bool { _, err := url.Parse(s); return err == nil }}
	c := NewCompiler(WithFormatAssertion(true))
	c.opts.formats = lenient
	s, err := c.Compile(schema)
	if err != nil {
		return ""
	}
	vs, err := s.Validate(instance)
	if err != nil || (len(vs) == 0) != want {
		return ""
	}
	return "the reference's uri check (net/url) takes characters RFC 3986 does not allow"
}

// gen writes random MCP-like tool schemas and instances at their
// boundaries.
type gen struct{ r *rand.Rand }

func (g gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// numbers near which tool schemas put their bounds, and the values around
// them, including those float64 cannot tell apart.
var genNumbers = []string{"0", "1", "-1", "0.5", "0.01", "0.1", "3", "10", "100", "1e2", "2.5", "-0", "1.0",
	"9007199254740992", "9007199254740993", "9223372036854775807", "9223372036854775808",
	"18446744073709551615", "18446744073709551616", "1e308", "1e309", "-1e309", "1.00000000000000001",
	"9007199254740990.99", "0.30000000000000004", "1e-7", "255", "65535", "4294967295"}

var genStrings = []string{`""`, `"a"`, `"ab"`, `"abc"`, `"hello world"`, `"a\u00a0b"`, `"a\u2028"`, `"é"`, `"😀"`,
	`"2024-05-01"`, `"2024-05-01T13:45:00Z"`, `"2024-02-30T00:00:00Z"`, `"13:45:00Z"`, `"name@example.com"`,
	`"not an email"`, `"192.168.0.1"`, `"::1"`, `"256.1.1.1"`, `"https://example.com/a?b#c"`, `"relative/path"`,
	`"123e4567-e89b-12d3-a456-426614174000"`, `"P3DT4H"`, `"left"`, `"right"`, `"UP"`, `"  "`, `"x y"`, `"a1"`}

var genPatterns = []string{`^[a-z]+$`, `^\\S+$`, `^[\\w\\s]+$`, `^.+$`, `^(?!\\s*$).+`, `\\d`, `^[A-Z]`, `^\\p{L}+$`, `^.{2,3}$`, `[^]`}

var genFormats = []string{"date-time", "date", "time", "email", "ipv4", "ipv6", "uri", "uri-reference", "uuid", "duration",
	"hostname", "iri", "json-pointer", "regex", "unknown-format"}

func (g gen) num() string { return genNumbers[g.r.IntN(len(genNumbers))] }

// prop is a property schema, depth bounding nesting, with a maker of
// values near its boundaries (mostly of its own type, sometimes not).
func (g gen) prop(depth int) (string, func() string) {
	var kw []string
	add := func(f string, a ...any) { kw = append(kw, fmt.Sprintf(f, a...)) }
	k := g.r.IntN(13)
	if depth <= 0 && k >= 5 {
		k = g.r.IntN(5)
	}
	val := func() string { return g.value(1) }
	switch k {
	case 0:
		add(`"type":"string"`)
		if g.r.IntN(2) == 0 {
			add(`"minLength":%d`, g.r.IntN(3))
		}
		if g.r.IntN(3) == 0 {
			add(`"maxLength":%d`, g.r.IntN(5))
		}
		if g.r.IntN(3) == 0 {
			add(`"pattern":"%s"`, g.pick(genPatterns...))
		}
		if g.r.IntN(3) == 0 {
			add(`"format":"%s"`, g.pick(genFormats...))
		}
		val = func() string { return g.pick(genStrings...) }
	case 1:
		add(`"type":"%s"`, g.pick("integer", "number"))
		for _, b := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if g.r.IntN(3) == 0 {
				add(`"%s":%s`, b, g.num())
			}
		}
		if g.r.IntN(4) == 0 {
			add(`"multipleOf":%s`, g.pick("0.01", "0.1", "2", "0.5", "3", "1e-7", "1"))
		}
		val = g.num
	case 2:
		e := []string{g.pick(genStrings...), g.num(), g.pick("null", "true", `"x"`)}
		add(`"enum":[%s]`, strings.Join(e, ","))
		val = func() string { return g.pick(append(e, g.num(), g.pick(genStrings...))...) }
	case 3:
		c := g.pick(g.num(), g.pick(genStrings...), "[1,2]", `{"a":1}`)
		add(`"const":%s`, c)
		val = func() string { return g.pick(c, c, g.num(), "[1,2.0]", `{"a":1.0}`) }
	case 4:
		add(`"type":"%s"`, g.pick("boolean", "null", "string", "integer"))
	case 5:
		is, iv := g.prop(depth - 1)
		add(`"type":"array","items":%s`, is)
		if g.r.IntN(2) == 0 {
			add(`"uniqueItems":%s`, g.pick("true", "false"))
		}
		if g.r.IntN(3) == 0 {
			add(`"minItems":%d,"maxItems":%d`, g.r.IntN(2), 1+g.r.IntN(3))
		}
		if g.r.IntN(3) == 0 {
			cs, _ := g.prop(depth - 1)
			add(`"contains":%s,"minContains":%d`, cs, g.r.IntN(3))
		}
		val = func() string {
			var items []string
			for range g.r.IntN(4) {
				items = append(items, iv())
			}
			if len(items) > 0 && g.r.IntN(3) == 0 {
				items = append(items, items[0])
			}
			return "[" + strings.Join(items, ",") + "]"
		}
	case 6:
		return g.object(depth - 1)
	case 7:
		as, av := g.prop(depth - 1)
		bs, bv := g.prop(depth - 1)
		add(`"%s":[%s,%s]`, g.pick("anyOf", "oneOf", "allOf"), as, bs)
		val = func() string { return g.pick(av(), bv()) }
	case 8:
		add(`"$ref":"#/$defs/d%d"`, g.r.IntN(2))
	case 9:
		ns, nv := g.prop(depth - 1)
		add(`"not":%s`, ns)
		val = func() string { return g.pick(nv(), g.value(1)) }
	case 10:
		as, av := g.prop(depth - 1)
		bs, bv := g.prop(depth - 1)
		add(`"type":"array","prefixItems":[%s,%s],"items":%s`, as, bs, g.pick("false", "true", `{"type":"integer"}`))
		if g.r.IntN(2) == 0 {
			add(`"unevaluatedItems":false`)
		}
		val = func() string {
			items := []string{av(), bv()}
			return "[" + strings.Join(items[:g.r.IntN(3)], ",") + g.pick("", ",1", `,"x"`) + "]"
		}
	case 11:
		is, iv := g.prop(depth - 1)
		ts, tv := g.prop(depth - 1)
		add(`"if":%s,"then":%s,"else":{"type":"%s"}`, is, ts, g.pick("string", "number", "null"))
		val = func() string { return g.pick(iv(), tv(), g.value(1)) }
	case 12:
		add(`"type":["%s","%s"]`, g.pick("string", "integer", "null", "array"), g.pick("number", "boolean", "object"))
	}
	return "{" + strings.Join(kw, ",") + "}", val
}

// object is an object schema with a few properties, and its instances.
func (g gen) object(depth int) (string, func() string) {
	n := 1 + g.r.IntN(3)
	var props, req []string
	var vals []func() string
	for i := range n {
		name := fmt.Sprintf("p%d", i)
		ps, pv := g.prop(depth)
		props = append(props, fmt.Sprintf(`"%s":%s`, name, ps))
		vals = append(vals, pv)
		if g.r.IntN(2) == 0 {
			req = append(req, `"`+name+`"`)
		}
	}
	s := `{"type":"object","properties":{` + strings.Join(props, ",") + `}`
	if len(req) > 0 {
		s += `,"required":[` + strings.Join(req, ",") + `]`
	}
	switch g.r.IntN(9) {
	case 5:
		s += `,"patternProperties":{"^q":{"type":"integer"},"^p[01]$":{"not":{"type":"null"}}},"additionalProperties":false`
	case 6:
		s += `,"propertyNames":{"maxLength":2},"minProperties":1,"maxProperties":3`
	case 7:
		s += `,"dependentSchemas":{"p0":{"required":["q"]}},"if":{"required":["r"]},"then":{"properties":{"r":{"type":"null"}}}`
	case 8:
		s += `,"allOf":[{"properties":{"q":true}}],"unevaluatedProperties":{"type":"number"}`
	case 0:
		s += `,"additionalProperties":false`
	case 1:
		s += `,"unevaluatedProperties":false`
	case 2:
		s += `,"dependentRequired":{"p0":["p1"]}`
	case 3:
		s += `,"anyOf":[{"properties":{"q":{"type":"integer"}}},{"properties":{"r":true}}],"unevaluatedProperties":false`
	}
	val := func() string {
		var m []string
		for i, v := range vals {
			if g.r.IntN(8) != 0 {
				m = append(m, fmt.Sprintf(`"p%d":%s`, i, v()))
			}
		}
		switch g.r.IntN(12) {
		case 0:
			m = append(m, `"extra":1`)
		case 1:
			m = append(m, `"q":`+g.num())
		case 2:
			m = append(m, `"r":null`)
		}
		return "{" + strings.Join(m, ",") + "}"
	}
	return s + "}", val
}

// schema is a whole tool schema and a maker of its instances.
func (g gen) schema() (string, func() string) {
	o, val := g.object(2)
	d0, _ := g.prop(0)
	d1, _ := g.prop(0)
	dialect := ""
	switch g.r.IntN(4) {
	case 0:
		// Draft-07 reads the 2020-12 keywords the generator writes as
		// unknown ones, and "$ref" alone.
		dialect = `"$schema":"http://json-schema.org/draft-07/schema#",`
	case 1:
		dialect = `"$schema":"https://json-schema.org/draft/2019-09/schema",`
	}
	return "{" + dialect + o[1:len(o)-1] + `,"$defs":{"d0":` + d0 + `,"d1":` + d1 + `}}`, val
}

// value is a random instance, biased to boundaries.
func (g gen) value(depth int) string {
	switch k := g.r.IntN(6); {
	case k < 2:
		return g.num()
	case k < 4:
		return g.pick(genStrings...)
	case k == 4:
		return g.pick("true", "false", "null")
	case depth > 0:
		return "[" + g.value(depth-1) + "]"
	}
	return g.num()
}

// differ compares the two verdicts on one case; "" when they agree or
// the disagreement is a known one.
func differ(schema, instance []byte) string {
	want, err := refVerdict(schema, instance)
	if err != nil {
		return "" // the reference cannot compile it: not a comparison
	}
	s, err := NewCompiler(WithFormatAssertion(true)).Compile(schema)
	if err != nil {
		return fmt.Sprintf("schema %s\ninstance %s\nthe reference compiles it, this package does not: %v", schema, instance, err)
	}
	vs, err := s.Validate(instance)
	if err != nil {
		return fmt.Sprintf("schema %s\ninstance %s\nvalidate: %v", schema, instance, err)
	}
	if got := len(vs) == 0; got != want && knownDisagreement(schema, instance, want) == "" {
		return fmt.Sprintf("schema %s\ninstance %s\nvalid = %v, the reference says %v (violations %v)", schema, instance, got, want, vs)
	}
	return ""
}

// TestDifferentialAgainstTheReference is the bounded differential run of
// make test: a fixed seed, 300 schemas, a few instances each.
func TestDifferentialAgainstTheReference(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(31, 2026))}
	cases, failures := 0, 0
	for range 300 {
		sch, val := g.schema()
		schema := []byte(sch)
		for range 6 {
			instance := []byte(val())
			cases++
			if d := differ(schema, instance); d != "" {
				failures++
				if failures <= 10 {
					t.Error(d)
				}
			}
		}
	}
	t.Logf("%d cases, %d disagreements", cases, failures)
}

// FuzzDifferential compares the two validators on generated schemas and
// instances (go test -fuzz=FuzzDifferential): the fuzzer's bytes seed the
// generator, and raw schema and instance bytes run as they are.
func FuzzDifferential(f *testing.F) {
	f.Add(uint64(1), uint64(2), []byte(`{"type":"integer","maximum":9223372036854775807}`), []byte(`9223372036854775808`))
	f.Add(uint64(3), uint64(4), []byte(`{"multipleOf":0.01}`), []byte(`1.00000000000000001`))
	f.Add(uint64(5), uint64(6), []byte(`{"anyOf":[{"properties":{"a":true}},{"properties":{"b":true}}],"unevaluatedProperties":false}`), []byte(`{"a":1,"b":1}`))
	f.Fuzz(func(t *testing.T, s1, s2 uint64, schema, instance []byte) {
		g := gen{rand.New(rand.NewPCG(s1, s2))}
		sch, val := g.schema()
		if d := differ([]byte(sch), []byte(val())); d != "" {
			t.Error(d)
		}
		if !json.Valid(schema) || !json.Valid(instance) || len(schema) > 4096 {
			return
		}
		if d := differ(schema, instance); d != "" {
			t.Error(d)
		}
	})
}

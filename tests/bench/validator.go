package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	qri "github.com/qri-io/jsonschema"
	ref "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gnosis/gnosis/runtime/schema"
)

// The validator's figures: compiling a typical tool schema (ten
// properties: strings with bounds, a pattern, an enum and a date-time,
// integers and a number with bounds, an array, a nested object) and
// validating one call's arguments against it, beside
// github.com/santhosh-tekuri/jsonschema/v6 (the reference: it passes the
// official suite) in the same run, batches alternated. Validation counts
// what the host does per call: decode the arguments' bytes, then check
// them. qri-io/jsonschema v0.2.1, the former base, is measured alongside
// as the record of why it was replaced.

const toolSchema = `{"type":"object","properties":{
"path":{"type":"string","minLength":1,"maxLength":4096,"description":"File or folder to read"},
"query":{"type":"string","pattern":"^[\\w .-]+$","description":"Words to look for"},
"limit":{"type":"integer","minimum":1,"maximum":1000,"default":50},
"offset":{"type":"integer","minimum":0},
"recursive":{"type":"boolean"},
"mode":{"type":"string","enum":["read","write","append"]},
"tags":{"type":"array","items":{"type":"string","maxLength":32},"maxItems":20,"uniqueItems":true},
"timeout":{"type":"number","exclusiveMinimum":0,"maximum":600},
"since":{"type":"string","format":"date-time"},
"options":{"type":"object","properties":{"encoding":{"type":"string"},"follow":{"type":"boolean"}},"additionalProperties":false}
},"required":["path","mode"],"additionalProperties":false}`

const toolArgs = `{"path":"/home/ann/notes.txt","query":"todo items","limit":20,"offset":0,"recursive":false,"mode":"read",` +
	`"tags":["work","home","later"],"timeout":2.5,"since":"2024-05-01T13:45:00Z","options":{"encoding":"utf-8","follow":true}}`

// validatorSide is one validator's compile and validate.
type validatorSide struct {
	name     string
	compile  func() error
	validate func() error
}

func gnosisSide() (validatorSide, error) {
	s, err := schema.NewCompiler().Compile(json.RawMessage(toolSchema))
	if err != nil {
		return validatorSide{}, err
	}
	return validatorSide{
		name: "gnosis",
		compile: func() error {
			_, err := schema.NewCompiler().Compile(json.RawMessage(toolSchema))
			return err
		},
		validate: func() error {
			vs, err := s.Validate(json.RawMessage(toolArgs))
			if err == nil && len(vs) > 0 {
				err = fmt.Errorf("violations %v", vs)
			}
			return err
		},
	}, nil
}

func refCompile() (*ref.Schema, error) {
	c := ref.NewCompiler()
	c.AssertFormat()
	doc, err := ref.UnmarshalJSON(bytes.NewReader([]byte(toolSchema)))
	if err != nil {
		return nil, err
	}
	if err := c.AddResource("mem://tool.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem://tool.json")
}

func refSide() (validatorSide, error) {
	s, err := refCompile()
	if err != nil {
		return validatorSide{}, err
	}
	return validatorSide{
		name:    "reference",
		compile: func() error { _, err := refCompile(); return err },
		validate: func() error {
			v, err := ref.UnmarshalJSON(bytes.NewReader([]byte(toolArgs)))
			if err != nil {
				return err
			}
			return s.Validate(v)
		},
	}, nil
}

func qriSide() (validatorSide, error) {
	compile := func() (*qri.Schema, error) {
		s := &qri.Schema{}
		return s, json.Unmarshal([]byte(toolSchema), s)
	}
	s, err := compile()
	if err != nil {
		return validatorSide{}, err
	}
	return validatorSide{
		name:    "qri-io",
		compile: func() error { _, err := compile(); return err },
		validate: func() error {
			errs, err := s.ValidateBytes(context.Background(), []byte(toolArgs))
			if err == nil && len(errs) > 0 {
				err = fmt.Errorf("violations %v", errs)
			}
			return err
		},
	}, nil
}

// perOp times n calls of f, per call.
func perOp(f func() error, n int) (time.Duration, error) {
	start := time.Now()
	for range n {
		if err := f(); err != nil {
			return 0, err
		}
	}
	return time.Since(start) / time.Duration(n), nil
}

func medianDur(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// validatorCost alternates batches of each side's compile and validate
// and compares the medians with the reference's.
func validatorCost(rounds int) ([]row, error) {
	var sides []validatorSide
	for _, mk := range []func() (validatorSide, error){gnosisSide, refSide, qriSide} {
		s, err := mk()
		if err != nil {
			return nil, err
		}
		sides = append(sides, s)
	}
	compileT := make([][]time.Duration, len(sides))
	validateT := make([][]time.Duration, len(sides))
	for r := range rounds {
		for k := range sides {
			// Alternate the order too, so that neither side always runs
			// first in a round.
			i := (k + r) % len(sides)
			c, err := perOp(sides[i].compile, 200)
			if err != nil {
				return nil, fmt.Errorf("%s compile: %w", sides[i].name, err)
			}
			v, err := perOp(sides[i].validate, 2000)
			if err != nil {
				return nil, fmt.Errorf("%s validate: %w", sides[i].name, err)
			}
			compileT[i] = append(compileT[i], c)
			validateT[i] = append(validateT[i], v)
		}
	}
	mk := func(what string, t [][]time.Duration) row {
		g, rf, q := medianDur(t[0]), medianDur(t[1]), medianDur(t[2])
		ratio := float64(g) / float64(rf)
		return row{
			what:     fmt.Sprintf("%s, 10-property tool schema, median of %d alternated batches", what, rounds),
			host:     fmt.Sprintf("%.2f µs = %.2f× reference", float64(g)/1e3, ratio),
			baseline: fmt.Sprintf("reference %.2f µs; qri-io %.2f µs (%.2f×)", float64(rf)/1e3, float64(q)/1e3, float64(q)/float64(rf)),
			target:   "≤ 1.00× reference",
			pass:     verdict(ratio <= 1.0),
		}
	}
	return []row{mk("validate (decode + check)", validateT), mk("compile", compileT)}, nil
}

package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"

	jptr "github.com/qri-io/jsonpointer"
	"github.com/qri-io/jsonschema"
)

// multipleOf is "multipleOf" in decimal arithmetic. It replaces
// qri-io/jsonschema v0.2.1's (keywords_numeric.go), which divides in binary
// floating point and checks float64(int(q)) == q: 0.07 and 19.99 were not
// multiples of 0.01, nor anything whose quotient passes 2^63.
//
// The step keeps its JSON text; a value is compared by the shortest decimal
// that reads back as the same float64, which is the text a JSON encoder
// writes for it.
type multipleOf struct {
	text string
	step *big.Rat
}

func newMultipleOf() jsonschema.Keyword { return new(multipleOf) }

// UnmarshalJSON takes a JSON number greater than 0.
func (m *multipleOf) UnmarshalJSON(b []byte) error {
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("multipleOf must be a number: %w", err)
	}
	// Through float64, so the exponent is bounded: "1e-100000000" must not
	// become a hundred-million-digit fraction.
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) {
		return fmt.Errorf("multipleOf must be a finite number greater than 0, not %s", n)
	}
	step := decimal(f)
	m.text, m.step = string(n), step
	return nil
}

// Register implements jsonschema.Keyword.
func (m *multipleOf) Register(string, *jsonschema.SchemaRegistry) {}

// Resolve implements jsonschema.Keyword.
func (m *multipleOf) Resolve(jptr.Pointer, string) *jsonschema.Schema { return nil }

// ValidateKeyword implements jsonschema.Keyword.
func (m *multipleOf) ValidateKeyword(_ context.Context, state *jsonschema.ValidationState, data any) {
	f, ok := data.(float64)
	if !ok {
		return
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return // encoding/json never decodes such a value
	}
	v := decimal(f)
	if !v.Quo(v, m.step).IsInt() {
		state.AddError(data, "must be a multiple of "+m.text)
	}
}

// decimal is f as the exact value of its shortest decimal form.
func decimal(f float64) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	return r
}

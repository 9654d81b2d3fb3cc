package schema

import (
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"math"
	"slices"
)

// duplicate finds two equal items (JSON equality: numbers by value,
// members in any order), the pair whose second item comes first. Short
// arrays are compared pair by pair; longer ones are hashed, and only
// items with the same hash compared, in 12 bytes per item. Every value
// hashed or compared costs a step.
func (s *state) duplicate(a []any, p *ipath) (int, int, bool) {
	if len(a) <= 8 {
		for j := 1; j < len(a); j++ {
			for i := range j {
				if s.equal(a[i], a[j], p, "uniqueItems") {
					return i, j, true
				}
			}
		}
		return 0, 0, false
	}
	seed := maphash.MakeSeed()
	hashes := make([]uint64, len(a))
	order := make([]int32, len(a))
	for i, v := range a {
		var cost int64
		hashes[i] = hashValue(seed, v, &cost)
		order[i] = int32(i)
		if !s.spend(cost, p, "uniqueItems") {
			return 0, 0, false
		}
	}
	if !s.spend(int64(len(a)), p, "uniqueItems") {
		return 0, 0, false
	}
	slices.SortFunc(order, func(x, y int32) int {
		switch hx, hy := hashes[x], hashes[y]; {
		case hx < hy:
			return -1
		case hx > hy:
			return 1
		}
		return int(x - y)
	})
	bi, bj := -1, -1
	for g := 0; g < len(order); {
		h := hashes[order[g]]
		end := g + 1
		for end < len(order) && hashes[order[end]] == h {
			end++
		}
		// Within a group (in index order), the first item equal to an
		// earlier one.
		for y := g + 1; y < end; y++ {
			j := int(order[y])
			if bj >= 0 && j >= bj {
				break
			}
			for x := g; x < y; x++ {
				if s.equal(a[order[x]], a[j], p, "uniqueItems") {
					bi, bj = int(order[x]), j
					break
				}
				if s.fatal != nil {
					return 0, 0, false
				}
			}
			if bj == j {
				break
			}
		}
		g = end
	}
	return bi, bj, bj >= 0
}

// hashValue hashes v so that equal values (by JSON equality) hash the
// same, adding the values it visits to cost.
func hashValue(seed maphash.Seed, v any, cost *int64) uint64 {
	*cost++
	var h maphash.Hash
	h.SetSeed(seed)
	var buf [8]byte
	switch x := v.(type) {
	case nil:
		h.WriteByte('n')
	case bool:
		if x {
			h.WriteByte('t')
		} else {
			h.WriteByte('f')
		}
	case string:
		h.WriteByte('s')
		h.WriteString(x)
	case json.Number:
		d, _ := parseDecimal(string(x))
		h.WriteByte('#')
		if d.neg {
			h.WriteByte('-')
		}
		h.WriteString(d.digits)
		binary.LittleEndian.PutUint64(buf[:], uint64(d.exp))
		h.Write(buf[:])
	case float64: // a value decoded without UseNumber
		if x == 0 {
			x = 0 // -0 equals 0
		}
		h.WriteByte('f')
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
		h.Write(buf[:])
	case []any:
		h.WriteByte('[')
		for _, e := range x {
			binary.LittleEndian.PutUint64(buf[:], hashValue(seed, e, cost))
			h.Write(buf[:])
		}
	case map[string]any:
		// Members in any order: their hashes are summed.
		var sum uint64
		for k, e := range x {
			var m maphash.Hash
			m.SetSeed(seed)
			m.WriteString(k)
			binary.LittleEndian.PutUint64(buf[:], hashValue(seed, e, cost))
			m.Write(buf[:])
			sum += m.Sum64()
			*cost++
		}
		h.WriteByte('{')
		binary.LittleEndian.PutUint64(buf[:], sum)
		h.Write(buf[:])
	}
	return h.Sum64()
}

// equal is JSON equality, each value compared a step of the budget.
func (s *state) equal(a, b any, p *ipath, keyword string) bool {
	var cost int64
	eq := equalCounting(a, b, &cost)
	return s.spend(cost, p, keyword) && eq
}

// equalCounting is equal, adding the values it compares to cost.
func equalCounting(a, b any, cost *int64) bool {
	*cost++
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalCounting(x[i], y[i], cost) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equalCounting(xv, yv, cost) {
				return false
			}
		}
		return true
	}
	return equal(a, b)
}

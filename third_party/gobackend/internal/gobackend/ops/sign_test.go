package ops

// Sign takes the difference of two comparisons instead of branching per element; the output
// must be bit for bit what the branches wrote.

import (
	"math"
	"testing"
)

// signByBranches is the former execSignGeneric.
func signByBranches[T float32 | float64 | int32](x T) T {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	default:
		return 0
	}
}

func checkSignBits[T float32 | float64 | int32](t *testing.T, name string, inputs []T, bits func(T) uint64) {
	t.Helper()
	outputs := make([]T, len(inputs))
	execSignGeneric(inputs, outputs)
	for i, x := range inputs {
		if want := signByBranches(x); bits(outputs[i]) != bits(want) {
			t.Errorf("%s: Sign(%v) = %v (bits %x), want %v (bits %x)", name, x, outputs[i], bits(outputs[i]), want, bits(want))
		}
	}
}

func TestSignWithoutBranches(t *testing.T) {
	negZero := math.Copysign(0, -1)
	floats := []float64{-3.5, -1e-30, negZero, 0, 1e-30, 2, math.Inf(1), math.Inf(-1), math.NaN(),
		math.Float64frombits(0xfff8000000000001), math.SmallestNonzeroFloat64, -math.MaxFloat64}
	float32s := make([]float32, len(floats))
	for i, f := range floats {
		float32s[i] = float32(f)
	}
	checkSignBits(t, "float32", float32s, func(x float32) uint64 { return uint64(math.Float32bits(x)) })
	checkSignBits(t, "float64", floats, math.Float64bits)
	checkSignBits(t, "int32", []int32{math.MinInt32, -7, -1, 0, 1, 9, math.MaxInt32},
		func(x int32) uint64 { return uint64(uint32(x)) })
}

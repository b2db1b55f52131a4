package quce

import (
	"math"
	"testing"
)

// ulp32 is Nextafter32(|x|, +Inf) − |x| for every float32: checked on the special values
// and on every 4093rd bit pattern, both signs.
func TestULP32(t *testing.T) {
	want := func(x float32) float64 {
		a := float32(math.Abs(float64(x)))
		return float64(math.Nextafter32(a, float32(math.Inf(1))) - a)
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	special := []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1, -1, 0.1, 72000.1, math.Float32frombits(0x007fffff)}
	for _, x := range special {
		if got := ulp32(x); !same(got, want(x)) {
			t.Errorf("ulp32(%v) = %v, want %v", x, got, want(x))
		}
	}
	for bits := uint64(0); bits < 1<<32; bits += 4093 {
		x := math.Float32frombits(uint32(bits))
		if got := ulp32(x); !same(got, want(x)) {
			t.Fatalf("ulp32(%v, bits %#x) = %v, want %v", x, bits, got, want(x))
		}
	}
}

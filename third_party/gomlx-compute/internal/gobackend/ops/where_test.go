package ops

// Where for 4-byte types selects bits with a mask instead of a branch per element (eight at a
// time with AVX2); the output must be bit for bit what the branch would write.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/internal/gobackend"
	"github.com/gomlx/compute/shapes"
)

func TestWhereSelectsBits(t *testing.T) {
	for _, n := range []int{1000, 1003, 16, 7} { // with AVX2, eight at a time and the rest one by one
		t.Run(fmt.Sprint(n), func(t *testing.T) { checkWhereSelectsBits(t, n) })
	}
}

func checkWhereSelectsBits(t *testing.T, n int) {
	rng := rand.New(rand.NewPCG(3, 4))
	condition := make([]bool, n)
	onTrue, onFalse := make([]float32, n), make([]float32, n)
	for i := range n {
		condition[i] = rng.IntN(2) == 0
		onTrue[i] = float32(rng.NormFloat64())
		onFalse[i] = -float32(rng.NormFloat64())
	}
	// Values whose bits a float comparison would not tell apart.
	onTrue[0], onFalse[0], condition[0] = float32(math.Copysign(0, -1)), 0, true
	onTrue[1], onFalse[1], condition[1] = 0, math.Float32frombits(0x7fc00001), false
	buffer := func(flat []float32) *gobackend.Buffer {
		if len(flat) == 1 {
			return &gobackend.Buffer{Flat: flat, RawShape: shapes.Make(dtypes.Float32)}
		}
		return &gobackend.Buffer{Flat: flat, RawShape: shapes.Make(dtypes.Float32, len(flat))}
	}
	scalarTrue, scalarFalse := []float32{2.5}, []float32{float32(math.Copysign(0, -1))}
	for _, tc := range []struct {
		name            string
		onTrue, onFalse []float32
	}{
		{"tensors", onTrue, onFalse},
		{"scalar onTrue", scalarTrue, onFalse},
		{"scalar onFalse", onTrue, scalarFalse},
		{"scalars", scalarTrue, scalarFalse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			output := make([]float32, n)
			execWhereGeneric[float32](&gobackend.Buffer{Flat: condition, RawShape: shapes.Make(dtypes.Bool, n)},
				buffer(tc.onTrue), buffer(tc.onFalse), buffer(output))
			for i, c := range condition {
				want := tc.onFalse[min(i, len(tc.onFalse)-1)]
				if c {
					want = tc.onTrue[min(i, len(tc.onTrue)-1)]
				}
				if math.Float32bits(output[i]) != math.Float32bits(want) {
					t.Fatalf("element %d (condition %v): got %v (%#x), want %v (%#x)",
						i, c, output[i], math.Float32bits(output[i]), want, math.Float32bits(want))
				}
			}
		})
	}
}

package ops

// Where for 4- and 8-byte types selects bits with a mask instead of a branch per element (eight
// or four at a time with AVX2); the output must be bit for bit what the branch would write.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

func TestWhereSelectsBits(t *testing.T) {
	for _, n := range []int{1000, 1003, 16, 7} { // with AVX2, eight at a time and the rest one by one
		t.Run(fmt.Sprint("float32/", n), func(t *testing.T) {
			checkWhereSelectsBits(t, n, dtypes.Float32, math.Float32frombits(0x7fc00001), func(x float32) uint64 { return uint64(math.Float32bits(x)) })
		})
		t.Run(fmt.Sprint("float64/", n), func(t *testing.T) {
			checkWhereSelectsBits(t, n, dtypes.Float64, math.Float64frombits(0x7ff8000000000001), math.Float64bits)
		})
	}
}

func checkWhereSelectsBits[T float32 | float64](t *testing.T, n int, dtype dtypes.DType, nan T, bits func(T) uint64) {
	rng := rand.New(rand.NewPCG(3, 4))
	condition := make([]bool, n)
	onTrue, onFalse := make([]T, n), make([]T, n)
	for i := range n {
		condition[i] = rng.IntN(2) == 0
		onTrue[i] = T(rng.NormFloat64())
		onFalse[i] = -T(rng.NormFloat64())
	}
	// Values whose bits a float comparison would not tell apart.
	onTrue[0], onFalse[0], condition[0] = T(math.Copysign(0, -1)), 0, true
	onTrue[1], onFalse[1], condition[1] = 0, nan, false
	buffer := func(flat []T) *gobackend.Buffer {
		if len(flat) == 1 {
			return &gobackend.Buffer{Flat: flat, RawShape: shapes.Make(dtype)}
		}
		return &gobackend.Buffer{Flat: flat, RawShape: shapes.Make(dtype, len(flat))}
	}
	scalarTrue, scalarFalse := []T{2.5}, []T{T(math.Copysign(0, -1))}
	for _, tc := range []struct {
		name            string
		onTrue, onFalse []T
	}{
		{"tensors", onTrue, onFalse},
		{"scalar onTrue", scalarTrue, onFalse},
		{"scalar onFalse", onTrue, scalarFalse},
		{"scalars", scalarTrue, scalarFalse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			output := make([]T, n)
			execWhereGeneric[T](&gobackend.Buffer{Flat: condition, RawShape: shapes.Make(dtypes.Bool, n)},
				buffer(tc.onTrue), buffer(tc.onFalse), buffer(output))
			for i, c := range condition {
				want := tc.onFalse[min(i, len(tc.onFalse)-1)]
				if c {
					want = tc.onTrue[min(i, len(tc.onTrue)-1)]
				}
				if bits(output[i]) != bits(want) {
					t.Fatalf("element %d (condition %v): got %v (%#x), want %v (%#x)",
						i, c, output[i], bits(output[i]), want, bits(want))
				}
			}
		})
	}
}

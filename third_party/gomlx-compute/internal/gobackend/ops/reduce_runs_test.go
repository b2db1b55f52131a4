package ops

// execReduceSumGeneric takes a run of the last axis at a time; every output element must get
// the same additions in the same order, bit for bit.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/internal/gobackend"
	"github.com/gomlx/compute/shapes"
)

func TestReduceSumByRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct{ dims, axes []int }{
		{[]int{}, []int{}},
		{[]int{9}, []int{0}},
		{[]int{64, 30}, []int{0}},
		{[]int{64, 30}, []int{1}},
		{[]int{64, 30}, []int{0, 1}},
		{[]int{2, 227, 30}, []int{1}},
		{[]int{3, 4, 5, 6}, []int{0, 2}},
		{[]int{3, 4, 5, 6}, []int{1, 3}},
		{[]int{3, 0, 5}, []int{1}},
		{[]int{1, 7, 1}, []int{2}},
	} {
		t.Run(fmt.Sprint(tc.dims, tc.axes), func(t *testing.T) {
			operandShape := shapes.Make(dtypes.Float32, tc.dims...)
			operandFlat := make([]float32, operandShape.Size())
			for i := range operandFlat {
				operandFlat[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3)))
			}
			var outputDims []int
			for axis, dim := range tc.dims {
				if !slices.Contains(tc.axes, axis) {
					outputDims = append(outputDims, dim)
				}
			}
			outputShape := shapes.Make(dtypes.Float32, outputDims...)
			// One element at a time.
			want := make([]float32, outputShape.Size())
			it := NewReduceOutputIterator(tc.dims, tc.axes)
			for _, value := range operandFlat {
				want[it.Next()] += value
			}
			output := &gobackend.Buffer{Flat: make([]float32, outputShape.Size()), RawShape: outputShape}
			for i := range output.Flat.([]float32) {
				output.Flat.([]float32)[i] = 99 // the reduction must start from zero
			}
			err := execReduceSumGeneric[float32](&gobackend.Buffer{Flat: operandFlat, RawShape: operandShape}, output,
				NewReduceOutputIterator(tc.dims, tc.axes), dtypes.Float32)
			if err != nil {
				t.Fatal(err)
			}
			for i, got := range output.Flat.([]float32) {
				if math.Float32bits(got) != math.Float32bits(want[i]) {
					t.Fatalf("output %d: got %v, want %v", i, got, want[i])
				}
			}
		})
	}
}

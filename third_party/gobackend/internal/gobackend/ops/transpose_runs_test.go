package ops

// execTransposeGeneric copies a run of the operand's last axis at a time, and
// avx2TransposeFloat32 moves 8 × 8 blocks; they must put every element where the element-wise
// iterator does.

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

func TestTransposeByRuns(t *testing.T) {
	for _, tc := range []struct{ dims, permutations []int }{
		{[]int{}, []int{}},
		{[]int{5}, []int{0}},
		{[]int{6, 5}, []int{0, 1}},
		{[]int{3, 7}, []int{1, 0}},
		{[]int{1, 1}, []int{1, 0}},
		{[]int{64, 30}, []int{1, 0}},
		{[]int{2, 3, 4}, []int{2, 0, 1}},
		{[]int{2, 3, 4}, []int{0, 2, 1}},
		{[]int{3, 0, 2}, []int{2, 1, 0}},
		{[]int{4, 1, 3, 2}, []int{3, 1, 0, 2}},
		{[]int{64, 128}, []int{1, 0}},
		{[]int{128, 30}, []int{1, 0}},
		{[]int{30, 128}, []int{1, 0}},
		{[]int{64, 15}, []int{1, 0}},
		{[]int{64, 15}, []int{0, 1}},
		{[]int{7, 9}, []int{1, 0}},
		{[]int{16, 8}, []int{1, 0}},
		{[]int{1, 17}, []int{1, 0}},
	} {
		t.Run(fmt.Sprint(tc.dims, tc.permutations), func(t *testing.T) {
			shape := shapes.Make(dtypes.Float32, tc.dims...)
			operand := make([]float32, shape.Size())
			for i := range operand {
				operand[i] = float32(i + 1)
			}
			want := make([]float32, len(operand))
			elementwise := NewTransposeIterator(shape, tc.permutations)
			for _, value := range operand {
				want[elementwise.Next()] = value
			}
			// The generic runs, and what float32 dispatches to (with GOEXPERIMENT=simd on an
			// AVX2 CPU, avx2TransposeFloat32: 8 × 8 blocks for matrices).
			registered, err := TransposeDTypeMap.Get(dtypes.Float32)
			if err != nil {
				t.Fatal(err)
			}
			for name, transpose := range map[string]func(operand, output *gobackend.Buffer, it *TransposeIterator){
				"generic": execTransposeGeneric[float32], "registered": registered.(func(operand, output *gobackend.Buffer, it *TransposeIterator)),
			} {
				got := make([]float32, len(operand))
				transpose(&gobackend.Buffer{Flat: operand}, &gobackend.Buffer{Flat: got}, NewTransposeIterator(shape, tc.permutations))
				if !slices.Equal(got, want) {
					t.Errorf("%s: got %v, want %v", name, got, want)
				}
			}
		})
	}
}

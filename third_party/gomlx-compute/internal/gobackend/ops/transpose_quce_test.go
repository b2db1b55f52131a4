package ops

// QUCE patch (third_party/README.md): execTransposeGeneric copies a run of the operand's last
// axis at a time; it must put every element where the element-wise iterator does.

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/internal/gobackend"
	"github.com/gomlx/compute/shapes"
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
			got := make([]float32, len(operand))
			execTransposeGeneric[float32](&gobackend.Buffer{Flat: operand}, &gobackend.Buffer{Flat: got},
				NewTransposeIterator(shape, tc.permutations))
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

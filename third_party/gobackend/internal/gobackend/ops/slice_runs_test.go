package ops

// execSliceGeneric copies a run of the last axis at a time; it must take the elements the
// element-by-element walk it replaced took.

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

// sliceOneByOne is the former execSliceGeneric.
func sliceOneByOne(operandShape shapes.Shape, operandFlat []float32, outputDimensions []int, params *sliceNode) []float32 {
	rank := operandShape.Rank()
	outputFlat := make([]float32, shapes.Make(dtypes.Float32, outputDimensions...).Size())
	operandFlatStrides := operandShape.Strides()
	outputAxisIdxs := make([]int, rank)
	var operandFlatIdx int
	for axis, start := range params.starts {
		operandFlatIdx += start * operandFlatStrides[axis]
	}
	for outputFlatIdx := range outputFlat {
		outputFlat[outputFlatIdx] = operandFlat[operandFlatIdx]
		for axis := rank - 1; axis >= 0; axis-- {
			outputAxisIdxs[axis]++
			if outputAxisIdxs[axis] < outputDimensions[axis] {
				operandFlatIdx += params.strides[axis] * operandFlatStrides[axis]
				break
			}
			operandFlatIdx -= (outputDimensions[axis] - 1) * params.strides[axis] * operandFlatStrides[axis]
			outputAxisIdxs[axis] = 0
		}
	}
	return outputFlat
}

func TestSliceByRuns(t *testing.T) {
	for _, tc := range []struct{ dims, starts, limits, strides []int }{
		{[]int{}, []int{}, []int{}, []int{}},
		{[]int{7}, []int{2}, []int{7}, []int{1}},
		{[]int{7}, []int{1}, []int{7}, []int{3}},
		{[]int{684, 30}, []int{0, 0}, []int{455, 30}, []int{1, 1}},
		{[]int{684, 30}, []int{455, 0}, []int{684, 30}, []int{1, 1}},
		{[]int{681, 2}, []int{0, 1}, []int{681, 2}, []int{1, 1}},
		{[]int{5, 6, 7}, []int{1, 2, 3}, []int{5, 6, 7}, []int{2, 1, 2}},
		{[]int{4, 3, 8}, []int{0, 1, 0}, []int{4, 3, 5}, []int{3, 2, 1}},
		{[]int{3, 0, 2}, []int{0, 0, 0}, []int{3, 0, 2}, []int{1, 1, 1}},
		{[]int{2, 3}, []int{0, 3}, []int{2, 3}, []int{1, 1}},
	} {
		t.Run(fmt.Sprint(tc.dims, tc.starts, tc.limits, tc.strides), func(t *testing.T) {
			operandShape := shapes.Make(dtypes.Float32, tc.dims...)
			operandFlat := make([]float32, operandShape.Size())
			for i := range operandFlat {
				operandFlat[i] = float32(i + 1)
			}
			outputDimensions := make([]int, len(tc.dims))
			for axis := range tc.dims {
				outputDimensions[axis] = (tc.limits[axis] - tc.starts[axis] + tc.strides[axis] - 1) / tc.strides[axis]
			}
			params := &sliceNode{starts: tc.starts, limits: tc.limits, strides: tc.strides}
			want := sliceOneByOne(operandShape, operandFlat, outputDimensions, params)
			outputShape := shapes.Make(dtypes.Float32, outputDimensions...)
			output := &gobackend.Buffer{Flat: make([]float32, outputShape.Size()), RawShape: outputShape}
			execSliceGeneric[float32](&gobackend.Buffer{Flat: operandFlat, RawShape: operandShape}, output, params)
			if got := output.Flat.([]float32); !slices.Equal(got, want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
		})
	}
}

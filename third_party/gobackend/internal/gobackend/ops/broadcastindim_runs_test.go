package ops

// BroadcastInDim fills runs of one element, or repeats the whole operand, where the shapes
// allow it; the outputs must be those of the element-by-element broadcast iterator.

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/compute/support/xslices"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

func TestBroadcastInDimByRuns(t *testing.T) {
	for _, tc := range []struct {
		operand, output, axes []int
		repeat                int // repeatedBroadcast's answer
		tiled                 bool
	}{
		{[]int{455}, []int{455, 30}, []int{0}, 30, false},
		{[]int{455, 1}, []int{455, 30}, []int{0, 1}, 30, false},
		{[]int{2, 3}, []int{2, 3, 4, 5}, []int{0, 1}, 20, false},
		{[]int{30}, []int{455, 30}, []int{1}, 0, true},
		{[]int{4}, []int{2, 3, 4}, []int{2}, 0, true},
		{[]int{2, 3}, []int{2, 3}, []int{0, 1}, 1, true},
		{[]int{3}, []int{2, 3, 4}, []int{1}, 0, false},
		{[]int{2, 1, 4}, []int{2, 3, 4}, []int{0, 1, 2}, 0, false},
		{[]int{1, 3, 1}, []int{2, 3, 4}, []int{0, 1, 2}, 0, false},
	} {
		t.Run(fmt.Sprint(tc.operand, tc.output, tc.axes), func(t *testing.T) {
			dims := xslices.SliceWithValue(len(tc.output), 1)
			for operandAxis, outputAxis := range tc.axes {
				dims[outputAxis] = tc.operand[operandAxis]
			}
			if got := repeatedBroadcast(dims, tc.output); got != tc.repeat {
				t.Errorf("repeatedBroadcast = %d, want %d", got, tc.repeat)
			}
			if got := tiledBroadcast(dims, tc.output); got != tc.tiled {
				t.Errorf("tiledBroadcast = %v, want %v", got, tc.tiled)
			}
			// Every operand dtype takes the same plan; float32 and bool are what the loops run.
			iter, repeat := broadcastPlan(shapes.Make(dtypes.Float32, tc.operand...), shapes.Make(dtypes.Float32, tc.output...), tc.axes)
			if (iter == nil) != (tc.repeat > 0 || tc.tiled) || repeat != tc.repeat {
				t.Errorf("broadcastPlan = (iterator %v, repeat %d)", iter != nil, repeat)
			}
			everyElement := gobackend.NewBroadcastIterator(shapes.Make(dtypes.Float32, dims...), shapes.Make(dtypes.Float32, tc.output...))
			outputSize := shapes.Make(dtypes.Float32, tc.output...).Size()
			size := shapes.Make(dtypes.Float32, tc.operand...).Size()
			floats, bools := make([]float32, size), make([]bool, size)
			for i := range floats {
				floats[i], bools[i] = float32(i+1), i%3 == 1
			}
			gotF, wantF := make([]float32, outputSize), make([]float32, outputSize)
			execBroadcastInDimGeneric[float32](&gobackend.Buffer{Flat: floats}, &gobackend.Buffer{Flat: gotF}, iter, repeat)
			execBroadcastInDimGeneric[float32](&gobackend.Buffer{Flat: floats}, &gobackend.Buffer{Flat: wantF}, everyElement, 0)
			if !slices.Equal(gotF, wantF) {
				t.Errorf("float32: got %v\nwant %v", gotF, wantF)
			}
			gotB, wantB := make([]bool, outputSize), make([]bool, outputSize)
			execBroadcastInDimGeneric[bool](&gobackend.Buffer{Flat: bools}, &gobackend.Buffer{Flat: gotB}, iter, repeat)
			execBroadcastInDimGeneric[bool](&gobackend.Buffer{Flat: bools}, &gobackend.Buffer{Flat: wantB}, everyElement, 0)
			if !slices.Equal(gotB, wantB) {
				t.Errorf("bool: got %v\nwant %v", gotB, wantB)
			}
		})
	}
}

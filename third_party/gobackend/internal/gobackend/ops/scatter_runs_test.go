package ops

// A scatter whose update windows are contiguous runs combines them a run at a time; it must
// write what the element-by-element loop writes, also where several windows land on the
// same place.

import (
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapeinference"
	"github.com/gomlx/compute/shapes"
)

func TestScatterContiguousWindows(t *testing.T) {
	for _, tc := range []struct {
		name                        string
		operand, indices, updates   []int
		indexVectorAxis             int
		window, inserted, toOperand []int
		contiguous                  bool
	}{
		{"rows", []int{12, 5}, []int{4, 1}, []int{4, 5}, 1, []int{1}, []int{0}, []int{0}, true},
		{"rows, implicit index vector", []int{12, 5}, []int{4}, []int{4, 5}, 1, []int{1}, []int{0}, []int{0}, true},
		{"elements", []int{12}, []int{7, 1}, []int{7}, 1, nil, []int{0}, []int{0}, true},
		{"planes by two indices", []int{3, 4, 2, 3}, []int{5, 2}, []int{5, 2, 3}, 1, []int{1, 2}, []int{0, 1}, []int{0, 1}, true},
		{"two batch axes", []int{6, 4}, []int{2, 3, 1}, []int{2, 3, 4}, 2, []int{2}, []int{0}, []int{0}, true},
		{"part of a row", []int{12, 5}, []int{4, 1}, []int{4, 3}, 1, []int{1}, []int{0}, []int{0}, false},
		{"columns", []int{5, 12}, []int{4, 1}, []int{5, 4}, 1, []int{0}, []int{1}, []int{1}, false},
		{"index vectors first", []int{12, 5}, []int{1, 4}, []int{4, 5}, 0, []int{1}, []int{0}, []int{0}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := &scatterNode{indexVectorAxis: tc.indexVectorAxis, updateWindowAxes: tc.window,
				insertedWindowAxes: tc.inserted, scatterAxesToOperandAxes: tc.toOperand}
			operandShape := shapes.Make(dtypes.Float32, tc.operand...)
			indicesShape := shapes.Make(dtypes.Int32, tc.indices...)
			updatesShape := shapes.Make(dtypes.Float32, tc.updates...)
			if _, err := shapeinference.Scatter(operandShape, indicesShape, updatesShape, tc.indexVectorAxis,
				tc.window, tc.inserted, tc.toOperand); err != nil {
				t.Fatal(err)
			}
			window, ok := contiguousScatterWindow(operandShape, indicesShape, updatesShape, params)
			if ok != tc.contiguous {
				t.Fatalf("contiguous = %v, want %v", ok, tc.contiguous)
			}
			if !ok {
				return
			}
			// Indices in range, repeated, so that windows add up; updates that do not add
			// exactly, so that the order of the sums shows.
			indices := make([]int32, indicesShape.Size())
			for i := range indices {
				axis := tc.toOperand[i%len(tc.toOperand)]
				indices[i] = int32((i * 7 / 3) % tc.operand[axis])
			}
			updates := make([]float32, updatesShape.Size())
			for i := range updates {
				updates[i] = 1/float32(i+3) + float32(i%5)*1e6
			}
			for _, combine := range []struct {
				name string
				fn   func(a, b float32) float32
				run  func(out, updates []float32)
			}{
				{"sum", combineForScatterSumGeneric[float32], addRun[float32]},
				{"max", combineForScatterMaxGeneric[float32], func(out, updates []float32) {
					for i, u := range updates {
						out[i] = combineForScatterMaxGeneric(out[i], u)
					}
				}},
			} {
				operand := func() []float32 {
					flat := make([]float32, operandShape.Size())
					for i := range flat {
						flat[i] = float32(i) / 10
					}
					return flat
				}
				want, got := operand(), operand()
				deref := dereferenceIntsGeneric[int32]
				scatterByIterators(operandShape, want, indicesShape, indices, updatesShape, updates, params, deref, combine.fn)
				scatterContiguous(operandShape, got, indices, updates, window, indicesShape, params, deref, combine.run)
				if !slices.Equal(got, want) {
					t.Errorf("%s: got %v\nwant %v", combine.name, got, want)
				}
			}
		})
	}
}

// An index vector outside the operand skips its window, as in XLA.
func TestScatterContiguousSkipsIndicesOutside(t *testing.T) {
	operandShape, indicesShape := shapes.Make(dtypes.Float32, 3, 2), shapes.Make(dtypes.Int32, 3, 1)
	params := &scatterNode{indexVectorAxis: 1, updateWindowAxes: []int{1}, insertedWindowAxes: []int{0},
		scatterAxesToOperandAxes: []int{0}}
	got := make([]float32, 6)
	scatterContiguous(operandShape, got, []int32{-1, 1, 3}, []float32{1, 2, 3, 4, 5, 6}, 2, indicesShape, params,
		dereferenceIntsGeneric[int32], addRun[float32])
	if want := []float32{0, 0, 3, 4, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

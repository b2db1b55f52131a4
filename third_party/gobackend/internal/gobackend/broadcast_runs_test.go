package gobackend

// ZipIterator.IterFlatIndices walks the last axis in runs; it must give the indices, in the
// order, of the element-by-element walk it replaced.

import (
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
)

// zippedIndicesOneByOne is the former IterFlatIndices.
func zippedIndicesOneByOne(zi *ZipIterator) []ZippedIndices {
	rank := len(zi.tgtDims)
	perAxesIdx := make([]int, rank)
	lhsFlatIdx, rhsFlatIdx := 0, 0
	var all []ZippedIndices
	for dstFlatIdx := range zi.tgtSize {
		all = append(all, ZippedIndices{LHSFlatIdx: lhsFlatIdx, RHSFlatIdx: rhsFlatIdx, TgtFlatIdx: dstFlatIdx})
		lhsFlatIdx++
		rhsFlatIdx++
		for axis := rank - 1; axis >= 0; axis-- {
			perAxesIdx[axis]++
			if perAxesIdx[axis] < zi.tgtDims[axis] {
				if zi.lhsIsBroadcast[axis] {
					lhsFlatIdx -= zi.lhsStrides[axis]
				}
				if zi.rhsIsBroadcast[axis] {
					rhsFlatIdx -= zi.rhsStrides[axis]
				}
				break
			}
			perAxesIdx[axis] = 0
		}
	}
	return all
}

func TestZipIteratorByRuns(t *testing.T) {
	for _, tc := range []struct{ lhs, rhs, tgt []int }{
		{nil, nil, nil},
		{[]int{5}, []int{1}, []int{5}},
		{[]int{1}, []int{5}, []int{5}},
		{[]int{684, 1}, []int{684, 30}, []int{684, 30}},
		{[]int{681, 2}, []int{681, 1}, []int{681, 2}},
		{[]int{227, 15}, []int{227, 1}, []int{227, 15}},
		{[]int{2, 1, 1}, []int{1, 227, 30}, []int{2, 227, 30}},
		{[]int{1, 228, 30}, []int{2, 228, 30}, []int{2, 228, 30}},
		{[]int{3, 1, 4, 1}, []int{1, 5, 1, 2}, []int{3, 5, 4, 2}},
		{[]int{1, 1, 7}, []int{2, 3, 1}, []int{2, 3, 7}},
		{[]int{0, 3}, []int{1, 3}, []int{0, 3}},
		{[]int{4, 1}, []int{4, 0}, []int{4, 0}},
	} {
		zi := NewZippedBroadcastIterator(shapes.Make(dtypes.Float32, tc.lhs...),
			shapes.Make(dtypes.Float32, tc.rhs...), shapes.Make(dtypes.Float32, tc.tgt...))
		want := zippedIndicesOneByOne(zi)
		var got []ZippedIndices
		for indices := range zi.IterFlatIndices() {
			got = append(got, indices)
		}
		if len(got) != len(want) {
			t.Errorf("%v, %v -> %v: %d indices, want %d", tc.lhs, tc.rhs, tc.tgt, len(got), len(want))
			continue
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%v, %v -> %v: index %d is %+v, want %+v", tc.lhs, tc.rhs, tc.tgt, i, got[i], want[i])
				break
			}
		}
		// Stopping early stops.
		n := 0
		for range zi.IterFlatIndices() {
			if n++; n == 3 {
				break
			}
		}
		if n != min(3, len(want)) {
			t.Errorf("%v, %v -> %v: the loop ran %d times after its break", tc.lhs, tc.rhs, tc.tgt, n)
		}
	}
}

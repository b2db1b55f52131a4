package ops

import (
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
)

// TestStridesInto: stridesInto gives Shape.Strides' values, in the buffer it is given where
// that has room (a buffer left with old values included), in a new slice otherwise.
func TestStridesInto(t *testing.T) {
	for _, tc := range []struct {
		dims []int
		want []int
	}{
		{[]int{2, 3, 4}, []int{12, 4, 1}},
		{[]int{3, 1, 2}, []int{2, 2, 1}},
		{[]int{2, 0, 3}, []int{0, 0, 0}},
		{nil, nil},
	} {
		shape := shapes.Make(dtypes.F32, tc.dims...)
		var store [3]int
		for i := range store {
			store[i] = 99
		}
		got := stridesInto(shape, store[:])
		if !slices.Equal(got, tc.want) || !slices.Equal(shape.Strides(), tc.want) {
			t.Errorf("%v: stridesInto gave %v and Strides %v, want %v", tc.dims, got, shape.Strides(), tc.want)
		}
		if len(got) > 0 && &got[0] != &store[0] {
			t.Errorf("%v: stridesInto did not use the buffer it was given", tc.dims)
		}
		if short := stridesInto(shape, store[:0:1]); !slices.Equal(short, tc.want) {
			t.Errorf("%v: stridesInto with a buffer too short gave %v, want %v", tc.dims, short, tc.want)
		}
	}
}

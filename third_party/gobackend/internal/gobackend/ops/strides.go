package ops

import "github.com/gomlx/compute/shapes"

// stridesInto is s.Strides() written into buf where it has room for the shape's rank (a new
// slice otherwise), so that an operation computing strides at every execution can keep them
// on its stack. Shape.Strides allocates a new slice at every call.
//
// It panics where Shape.Strides panics (a dynamic or negative dimension).
func stridesInto(s shapes.Shape, buf []int) (strides []int) {
	rank := s.Rank()
	if rank == 0 {
		return buf[:0]
	}
	if cap(buf) >= rank {
		strides = buf[:rank]
	} else {
		strides = make([]int, rank)
	}
	if s.IsZeroSize() {
		// Some axis is zero-dimension.
		clear(strides)
		return
	}
	currentStride := 1
	for axis := rank - 1; axis >= 0; axis-- {
		dim := s.Dimensions[axis]
		if dim < 0 {
			return s.Strides() // a dynamic or negative dimension: Strides panics with its message
		}
		strides[axis] = currentStride
		currentStride *= dim
	}
	return
}

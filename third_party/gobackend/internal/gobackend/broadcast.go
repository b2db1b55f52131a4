package gobackend

import (
	"iter"
	"slices"

	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/exceptions"
)

// BroadcastIterator allows iteration over the flat indices of the target shape of a broadcast (where some axis
// dimensions grow)
//
// It is used by implicit broadcasting in binary ops and by the BroadcastInDim.
type BroadcastIterator struct {
	tgtSize     int
	srcStrides  []int
	isBroadcast []bool
	tgtDims     []int
}

// NewBroadcastIterator returns an iterator contructor over the flat indices of the target shape of a broadcast (where
// some axis dimensions grow).
//
// Pre-requisite: srcShape.Rank() == tgtShape.Rank().
//
// It is used by implicit broadcasting in binary ops and by the BroadcastInDim.
func NewBroadcastIterator(srcShape, tgtShape shapes.Shape) *BroadcastIterator {
	rank := srcShape.Rank()
	if rank != tgtShape.Rank() {
		exceptions.Panicf("broadcastIterator: rank mismatch srcShape=%s, tgtShape=%s", srcShape, tgtShape)
	}
	bi := &BroadcastIterator{
		tgtSize:     tgtShape.Size(),
		tgtDims:     slices.Clone(tgtShape.Dimensions),
		isBroadcast: make([]bool, rank),
		srcStrides:  srcShape.Strides(),
	}
	for axis := range rank {
		bi.isBroadcast[axis] = srcShape.Dimensions[axis] != tgtShape.Dimensions[axis]
	}
	return bi
}

// IterFlatIndices iterate over the source and target flat indices for broadcast.
// Notice since we are broadcasting, the target index will always be incremented by 1,
// while the source index may repeat (when it is being broadcast).
func (bi *BroadcastIterator) IterFlatIndices() iter.Seq2[int, int] {
	return func(yield func(srcIdx, tgtIdx int) bool) {
		rank := len(bi.tgtDims)
		perAxesIdx := make([]int, rank)
		srcFlatIdx := 0
		for dstFlatIdx := range bi.tgtSize {
			// Yield first.
			if !yield(srcFlatIdx, dstFlatIdx) {
				return
			}

			// Bump to next srcFlatIdx.
			srcFlatIdx++
			for axis := rank - 1; axis >= 0; axis-- {
				perAxesIdx[axis]++
				if perAxesIdx[axis] < bi.tgtDims[axis] {
					if bi.isBroadcast[axis] {
						// If we are broadcasting on this axis, we need to go back and repeat the same slice of the tensor.
						srcFlatIdx -= bi.srcStrides[axis]
					}
					break
				}
				perAxesIdx[axis] = 0
			}
		}
	}
}

// ZippedIndices of two BroadcastIterators.
type ZippedIndices struct {
	LHSFlatIdx, RHSFlatIdx int
	TgtFlatIdx             int
}

// ZipIterator allows iteration over the flat indices of the target shape of a broadcast (where some axis
// dimensions grow) for two input shapes (LHS and RHS).
//
// It implements the implicit broadcasting for binary ops like Add, Sub, Mul, Div, etc.
type ZipIterator struct {
	tgtSize        int
	tgtDims        []int
	lhsStrides     []int
	rhsStrides     []int
	lhsIsBroadcast []bool
	rhsIsBroadcast []bool

	// How far each input's flat index moves for a step along each axis of the target (the
	// stride, or 0 where the input is broadcast). Derived from the fields above.
	lhsSteps, rhsSteps []int
}

// NewZippedBroadcastIterator returns an iterator constructor over the flat indices of the target shape of a broadcast (where
// some axis dimensions grow) for two input shapes (LHS and RHS).
//
// Pre-requisite: lhsShape.Rank() == tgtShape.Rank() && rhsShape.Rank() == tgtShape.Rank().
//
// It implements the implicit broadcasting for binary ops like Add, Sub, Mul, Div, etc.
func NewZippedBroadcastIterator(lhsShape, rhsShape, tgtShape shapes.Shape) *ZipIterator {
	rank := tgtShape.Rank()
	if lhsShape.Rank() != rank || rhsShape.Rank() != rank {
		exceptions.Panicf("zippedBroadcastIterator: rank mismatch lhsShape=%s, rhsShape=%s, tgtShape=%s", lhsShape, rhsShape, tgtShape)
	}

	zi := &ZipIterator{
		tgtSize:        tgtShape.Size(),
		tgtDims:        slices.Clone(tgtShape.Dimensions),
		lhsStrides:     lhsShape.Strides(),
		rhsStrides:     rhsShape.Strides(),
		lhsIsBroadcast: make([]bool, rank),
		rhsIsBroadcast: make([]bool, rank),
	}
	zi.lhsSteps, zi.rhsSteps = make([]int, rank), make([]int, rank)
	for axis := range rank {
		zi.lhsIsBroadcast[axis] = lhsShape.Dimensions[axis] != tgtShape.Dimensions[axis]
		zi.rhsIsBroadcast[axis] = rhsShape.Dimensions[axis] != tgtShape.Dimensions[axis]
		if !zi.lhsIsBroadcast[axis] {
			zi.lhsSteps[axis] = zi.lhsStrides[axis]
		}
		if !zi.rhsIsBroadcast[axis] {
			zi.rhsSteps[axis] = zi.rhsStrides[axis]
		}
	}
	return zi
}

// nodeBroadcast is the ZipIterator of a node's operands of shapes lhs and rhs.
type nodeBroadcast struct {
	lhs, rhs shapes.Shape
	zi       *ZipIterator
}

// BroadcastIterator is NewZippedBroadcastIterator(lhsShape, rhsShape, node.Shape), made once
// per node and operands' dimensions: executions of a graph give a node operands of the same
// shapes every time, and building the iterator (eight small allocations) was a tenth of the
// allocations of an execution of a graph of small operations. A ZipIterator is not changed
// by its use, so executions running at the same time may share it.
func (node *Node) BroadcastIterator(lhsShape, rhsShape shapes.Shape) *ZipIterator {
	if c := node.broadcast.Load(); c != nil && slices.Equal(c.lhs.Dimensions, lhsShape.Dimensions) && slices.Equal(c.rhs.Dimensions, rhsShape.Dimensions) {
		return c.zi
	}
	zi := NewZippedBroadcastIterator(lhsShape, rhsShape, node.Shape)
	node.broadcast.Store(&nodeBroadcast{lhs: lhsShape, rhs: rhsShape, zi: zi})
	return zi
}

// EqualNodeData implements NodeDataComparable, so this can be used as NodeData -- the comparison
// is used for deduping repeated nodes during model building.
func (z *ZipIterator) EqualNodeData(other NodeDataComparable) bool {
	if z == nil && other == nil {
		return true
	}
	if z == nil || other == nil {
		return false
	}
	otherZ, ok := other.(*ZipIterator)
	if !ok {
		return false
	}
	return z.tgtSize == otherZ.tgtSize &&
		slices.Equal(z.tgtDims, otherZ.tgtDims) &&
		slices.Equal(z.lhsStrides, otherZ.lhsStrides) &&
		slices.Equal(z.rhsStrides, otherZ.rhsStrides) &&
		slices.Equal(z.lhsIsBroadcast, otherZ.lhsIsBroadcast) &&
		slices.Equal(z.rhsIsBroadcast, otherZ.rhsIsBroadcast)
}

// IterFlatIndices iterate over the lhs, rhs and target flat indices for broadcast.
// Notice since we are broadcasting, the target index will always be incremented by 1,
// while the source indices may repeat (when it is being broadcast).
//
// The indices of a run along the last axis are taken in an inner loop (each a start plus a
// multiple of a step), and the other axes' counters move once per run, not once per element;
// the same indices in the same order. It stays small enough for the compiler to inline it, and
// the loop body, into the binary ops.
func (zi *ZipIterator) IterFlatIndices() iter.Seq[ZippedIndices] {
	return func(yield func(ZippedIndices) bool) {
		rank := len(zi.tgtDims)
		if rank == 0 {
			yield(ZippedIndices{})
			return
		}
		perAxesIdx := make([]int, rank)
		runLen, lhsStep, rhsStep := zi.tgtDims[rank-1], zi.lhsSteps[rank-1], zi.rhsSteps[rank-1]
		lhsStart, rhsStart := 0, 0
		for dstStart := 0; dstStart < zi.tgtSize; dstStart += runLen {
			for j := range runLen {
				if !yield(ZippedIndices{LHSFlatIdx: lhsStart + j*lhsStep, RHSFlatIdx: rhsStart + j*rhsStep, TgtFlatIdx: dstStart + j}) {
					return
				}
			}
			lhsStart, rhsStart = zi.nextRun(perAxesIdx, lhsStart, rhsStart)
		}
	}
}

// nextRun moves the counters of the axes before the last one to the next run along the last
// axis, and returns the flat indices of the lhs and rhs elements that start it.
func (zi *ZipIterator) nextRun(perAxesIdx []int, lhsStart, rhsStart int) (int, int) {
	for axis := len(zi.tgtDims) - 2; axis >= 0; axis-- {
		lhsStart += zi.lhsSteps[axis]
		rhsStart += zi.rhsSteps[axis]
		if perAxesIdx[axis]++; perAxesIdx[axis] < zi.tgtDims[axis] {
			break
		}
		perAxesIdx[axis] = 0
		lhsStart -= zi.lhsSteps[axis] * zi.tgtDims[axis]
		rhsStart -= zi.rhsSteps[axis] * zi.tgtDims[axis]
	}
	return lhsStart, rhsStart
}

// LastAxis returns the rank of the target, the length of a run along its last axis, and how
// far the lhs and rhs flat indices move for each element of a run (0 where that input is
// broadcast along the last axis). With NextRun, a run at a time in IterFlatIndices' order,
// without allocations (the float32 binary ops on AVX2 take a run at a time).
func (zi *ZipIterator) LastAxis() (rank, runLen, lhsStep, rhsStep int) {
	rank = len(zi.tgtDims)
	if rank == 0 {
		return 0, 1, 0, 0
	}
	return rank, zi.tgtDims[rank-1], zi.lhsSteps[rank-1], zi.rhsSteps[rank-1]
}

// NextRun moves perAxesIdx, the counters of the target's axes (rank of them, all 0 at the
// first run), to the run after the one whose first lhs and rhs elements are at the flat
// indices lhsStart and rhsStart, and returns that run's.
func (zi *ZipIterator) NextRun(perAxesIdx []int, lhsStart, rhsStart int) (int, int) {
	return zi.nextRun(perAxesIdx, lhsStart, rhsStart)
}

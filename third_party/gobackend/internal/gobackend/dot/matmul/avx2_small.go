// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

//go:build amd64 && goexperiment.simd

package matmul

import (
	"simd/archsimd"
	"unsafe"

	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend/dot"
	//alt:bf16 "github.com/gomlx/compute/dtypes/bfloat16"
	//alt:f16 "github.com/gomlx/compute/dtypes/float16"
)

// Auto-generate alternate specialized versions of AVX2 operations.
//go:generate go run ../../../cmd/alternates_generator -base=avx2_router.go -tags=bf16,f16,f64
//go:generate go run ../../../cmd/alternates_generator -base=avx2_small.go -tags=bf16,f16,f64
//go:generate go run ../../../cmd/alternates_generator -base=avx2_large.go -tags=bf16,f16,f64

// avx2SmallFloat32Parallel implements a parallelized version of the AVX2 small matrix multiplication.
func avx2SmallFloat32Parallel( //alt:f32
	//alt:bf16 func avx2SmallBFloat16Parallel(
	//alt:f16 func avx2SmallFloat16Parallel(
	//alt:f64 func avx2SmallFloat64Parallel(
	backend *gobackend.Backend,
	layout dot.Layout,
	lhs, rhs []float32, //alt:f32
	//alt:bf16 lhs, rhs []bfloat16.BFloat16,
	//alt:f16 lhs, rhs []float16.Float16,
	//alt:f64 lhs, rhs []float64,
	batchSize, lhsCrossSize, rhsCrossSize, contractingSize int,
	output []float32) { //alt:f32|bf16|f16
	//alt:f64 output []float64) {

	// A single product runs on one worker whatever the pool's size: asked only for batches,
	// since the size is runtime.GOMAXPROCS(0), which takes the scheduler's lock (for graphs
	// of small products, such as one row's, a few percent of the time).
	maxWorkers := 1
	if backend.Workers != nil && batchSize > 1 {
		maxWorkers = backend.Workers.AdjustedMaxParallelism()
	}

	if maxWorkers <= 1 || batchSize <= 1 {
		if layout == dot.LayoutNonTransposed {
			avx2SmallFloat32(lhs, rhs, 0, batchSize, lhsCrossSize, rhsCrossSize, contractingSize, output) //alt:f32
			//alt:bf16 avx2SmallBFloat16(lhs, rhs, 0, batchSize, lhsCrossSize, rhsCrossSize, contractingSize, output)
			//alt:f16 avx2SmallFloat16(lhs, rhs, 0, batchSize, lhsCrossSize, rhsCrossSize, contractingSize, output)
			//alt:f64 avx2SmallFloat64(lhs, rhs, 0, batchSize, lhsCrossSize, rhsCrossSize, contractingSize, output)
		} else {
			avx2SmallFloat32Transposed(lhs, rhs, 0, batchSize, lhsCrossSize, rhsCrossSize, contractingSize, output) //alt:f32
			//alt:bf16 avx2SmallBFloat16Transposed(lhs, rhs, 0, batchSize, lhsCrossSize, rhsCrossSize, contractingSize, output)
			//alt:f16 avx2SmallFloat16Transposed(lhs, rhs, 0, batchSize, lhsCrossSize, rhsCrossSize, contractingSize, output)
			//alt:f64 avx2SmallFloat64Transposed(lhs, rhs, 0, batchSize, lhsCrossSize, rhsCrossSize, contractingSize, output)
		}
		return
	}

	type chunkData struct {
		batchIdx, batchCount int
	}
	numChunks := min(batchSize, maxWorkers*2)
	batchPerChunk := (batchSize + numChunks - 1) / numChunks
	work := make(chan chunkData, numChunks)
	for batchIdx := 0; batchIdx < batchSize; batchIdx += batchPerChunk {
		count := min(batchPerChunk, batchSize-batchIdx)
		work <- chunkData{batchIdx, count}
	}
	close(work)

	backend.Workers.Saturate(func() {
		// VZEROUPPER before scalar SSE code.
		defer archsimd.ClearAVXUpperBits()
		for chunk := range work {
			if layout == dot.LayoutNonTransposed {
				avx2SmallFloat32(lhs, rhs, chunk.batchIdx, chunk.batchCount, lhsCrossSize, rhsCrossSize, contractingSize, output) //alt:f32
				//alt:bf16 avx2SmallBFloat16(lhs, rhs, chunk.batchIdx, chunk.batchCount, lhsCrossSize, rhsCrossSize, contractingSize, output)
				//alt:f16 avx2SmallFloat16(lhs, rhs, chunk.batchIdx, chunk.batchCount, lhsCrossSize, rhsCrossSize, contractingSize, output)
				//alt:f64 avx2SmallFloat64(lhs, rhs, chunk.batchIdx, chunk.batchCount, lhsCrossSize, rhsCrossSize, contractingSize, output)
			} else {
				avx2SmallFloat32Transposed(lhs, rhs, chunk.batchIdx, chunk.batchCount, lhsCrossSize, rhsCrossSize, contractingSize, output) //alt:f32
				//alt:bf16 avx2SmallBFloat16Transposed(lhs, rhs, chunk.batchIdx, chunk.batchCount, lhsCrossSize, rhsCrossSize, contractingSize, output)
				//alt:f16 avx2SmallFloat16Transposed(lhs, rhs, chunk.batchIdx, chunk.batchCount, lhsCrossSize, rhsCrossSize, contractingSize, output)
				//alt:f64 avx2SmallFloat64Transposed(lhs, rhs, chunk.batchIdx, chunk.batchCount, lhsCrossSize, rhsCrossSize, contractingSize, output)
			}
		}
	})
}

// avx2SmallFloat32 implements an AVX2 matrix multiplication for small inputs.
//
// Each block of 4 output rows × 16 (or 8) output columns is accumulated in registers over the
// whole contraction and stored once, instead of being loaded and stored again for every k.
// Every output element is still the same fused multiply-adds in the same order of k, so the
// results are bit-identical.
func avx2SmallFloat32( //alt:f32
	//alt:bf16 func avx2SmallBFloat16(
	//alt:f16 func avx2SmallFloat16(
	//alt:f64 func avx2SmallFloat64(
	lhs, rhs []float32, //alt:f32
	//alt:bf16 lhs, rhs []bfloat16.BFloat16,
	//alt:f16 lhs, rhs []float16.Float16,
	//alt:f64 lhs, rhs []float64,
	batchStart, batchCount, lhsCrossSize, rhsCrossSize, contractingSize int,
	output []float32) { //alt:f32|bf16|f16
	//alt:f64 output []float64) {

	if batchCount == 0 || lhsCrossSize == 0 || rhsCrossSize == 0 || contractingSize == 0 {
		return
	}

	lhsStride := lhsCrossSize * contractingSize
	rhsStride := contractingSize * rhsCrossSize
	outputStride := lhsCrossSize * rhsCrossSize

	var iZero float32 //alt:f32
	//alt:bf16 var iZero bfloat16.BFloat16
	//alt:f16 var iZero float16.Float16
	//alt:f64 var iZero float64
	iSize := unsafe.Sizeof(iZero)
	var oZero float32 //alt:f32|bf16|f16
	//alt:f64 var oZero float64
	oSize := unsafe.Sizeof(oZero)

	lhsPtr := uintptr(unsafe.Pointer(unsafe.SliceData(lhs)))
	rhsPtr := uintptr(unsafe.Pointer(unsafe.SliceData(rhs)))
	outputPtr := uintptr(unsafe.Pointer(unsafe.SliceData(output)))

	lhsByteStride := uintptr(lhsStride) * iSize
	rhsByteStride := uintptr(rhsStride) * iSize
	outputByteStride := uintptr(outputStride) * oSize
	rhsRowBytes := uintptr(rhsCrossSize) * iSize

	lhsBase := lhsPtr + uintptr(batchStart)*lhsByteStride
	rhsBase := rhsPtr + uintptr(batchStart)*rhsByteStride
	outputBase := outputPtr + uintptr(batchStart)*outputByteStride

	const outputVecWidth = 8 //alt:f32|bf16|f16
	//alt:f64 const outputVecWidth = 4

	for range batchCount {
		row := 0
		//alt:f32{
		// Six rows at a time in assembly, their columns in groups of 16 (all of them in padded
		// layers), then their last columns, fewer than 16, four rows at a time (the second
		// four are the last four of the six: two rows are computed again, to the same bits);
		// then the four-row loop and the single rows below for the rest.
		if groups := rhsCrossSize / (2 * outputVecWidth); groups > 0 {
			rest := groups * 2 * outputVecWidth
			for ; row+5 < lhsCrossSize; row += 6 {
				avx2Rows6Float32(lhsBase+uintptr(row*contractingSize)*iSize, rhsBase, outputBase+uintptr(row*rhsCrossSize)*oSize,
					uintptr(contractingSize), uintptr(groups),
					uintptr(contractingSize)*iSize, rhsRowBytes, uintptr(rhsCrossSize)*oSize)
				if rest < rhsCrossSize {
					avx2SmallFourRowsFloat32(lhsBase, rhsBase, outputBase, row, rest, contractingSize, rhsCrossSize)
					avx2SmallFourRowsFloat32(lhsBase, rhsBase, outputBase, row+2, rest, contractingSize, rhsCrossSize)
				}
			}
		}
		//alt:f32}
		for ; row+3 < lhsCrossSize; row += 4 {
			avx2SmallFourRowsFloat32(lhsBase, rhsBase, outputBase, row, 0, contractingSize, rhsCrossSize) //alt:f32
			//alt:bf16 avx2SmallFourRowsBFloat16(lhsBase, rhsBase, outputBase, row, 0, contractingSize, rhsCrossSize)
			//alt:f16 avx2SmallFourRowsFloat16(lhsBase, rhsBase, outputBase, row, 0, contractingSize, rhsCrossSize)
			//alt:f64 avx2SmallFourRowsFloat64(lhsBase, rhsBase, outputBase, row, 0, contractingSize, rhsCrossSize)
		}

		for ; row < lhsCrossSize; row++ {
			lBase := lhsBase + uintptr(row*contractingSize)*iSize
			outBase := outputBase + uintptr(row*rhsCrossSize)*oSize

			col := 0
			//alt:f32{
			// A single row 64 columns at a time in assembly (eight chains of fused
			// multiply-adds), then 32 at a time (four chains), instead of one chain, which
			// waits on each multiply-add's latency (a batch of one row, or the last rows of a
			// batch, is all this loop).
			if groups := rhsCrossSize / (8 * outputVecWidth); groups > 0 {
				avx2RowFloat32(lBase, rhsBase, outBase, uintptr(contractingSize), uintptr(groups), rhsRowBytes)
				col = groups * 8 * outputVecWidth
			}
			for ; col+4*outputVecWidth <= rhsCrossSize; col += 4 * outputVecWidth {
				var o0, o1, o2, o3 archsimd.Float32x8
				rPtr := rhsBase + uintptr(col)*iSize
				for k := 0; k < contractingSize; k++ {
					l0 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(lBase + uintptr(k)*iSize)))
					o0 = l0.MulAdd(archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(rPtr))), o0)
					o1 = l0.MulAdd(archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(rPtr+8*iSize))), o1)
					o2 = l0.MulAdd(archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(rPtr+16*iSize))), o2)
					o3 = l0.MulAdd(archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(rPtr+24*iSize))), o3)
					rPtr += rhsRowBytes
				}
				outPtr := outBase + uintptr(col)*oSize
				o0.StoreArray((*[8]float32)(unsafe.Pointer(outPtr)))
				o1.StoreArray((*[8]float32)(unsafe.Pointer(outPtr + 8*oSize)))
				o2.StoreArray((*[8]float32)(unsafe.Pointer(outPtr + 16*oSize)))
				o3.StoreArray((*[8]float32)(unsafe.Pointer(outPtr + 24*oSize)))
			}
			//alt:f32}
			for ; col+outputVecWidth <= rhsCrossSize; col += outputVecWidth {
				var o0 archsimd.Float32x8 //alt:f32|bf16|f16
				//alt:f64 var o0 archsimd.Float64x4
				rPtr := rhsBase + uintptr(col)*iSize
				for k := 0; k < contractingSize; k++ {
					lPtr := lBase + uintptr(k)*iSize
					l0 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(lPtr))) //alt:f32
					//alt:bf16 l0 := archsimd.BroadcastFloat32x8((*(*bfloat16.BFloat16)(unsafe.Pointer(lPtr))).Float32())
					//alt:f16 l0 := archsimd.BroadcastFloat32x8((*(*float16.Float16)(unsafe.Pointer(lPtr))).Float32())
					//alt:f64 l0 := archsimd.BroadcastFloat64x4(*(*float64)(unsafe.Pointer(lPtr)))

					r0 := archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(rPtr))) //alt:f32
					//alt:bf16 r0, _ := bfloat16.LoadBFloat16x16((*[16]bfloat16.BFloat16)(unsafe.Pointer(rPtr))).ToFloat32()
					//alt:f16 r0, _ := float16.LoadFloat16x16((*[16]float16.Float16)(unsafe.Pointer(rPtr))).ToFloat32()
					//alt:f64 r0 := archsimd.LoadFloat64x4Array((*[4]float64)(unsafe.Pointer(rPtr)))
					rPtr += rhsRowBytes

					o0 = l0.MulAdd(r0, o0)
				}
				o0.StoreArray((*[8]float32)(unsafe.Pointer(outBase + uintptr(col)*oSize))) //alt:f32|bf16|f16
				//alt:f64 o0.StoreArray((*[4]float64)(unsafe.Pointer(outBase + uintptr(col)*oSize)))
			}

			//alt:f32{
			if col < rhsCrossSize {
				// As for four rows above.
				mask := avx2TailMaskFloat32(rhsCrossSize - col)
				rPtr := rhsBase + uintptr(col)*iSize
				var s0 archsimd.Float32x8
				for k := 0; k < contractingSize; k++ {
					r0 := archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(rPtr))).Masked(mask)
					rPtr += rhsRowBytes
					p0 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(lBase + uintptr(k)*iSize))).Mul(r0)
					if k == 0 {
						s0 = p0
					} else {
						s0 = s0.Add(p0)
					}
				}
				s0.StoreArrayMasked((*[8]float32)(unsafe.Pointer(outBase+uintptr(col)*oSize)), mask)
				col = rhsCrossSize
			}
			//alt:f32}
			if col < rhsCrossSize {
				// VZEROUPPER before scalar SSE code.
				archsimd.ClearAVXUpperBits()
			}
			for ; col < rhsCrossSize; col++ {
				var s0 float32 //alt:f32|bf16|f16
				//alt:f64 var s0 float64
				rPtr := rhsBase + uintptr(col)*iSize
				for k := 0; k < contractingSize; k++ {
					r0 := *(*float32)(unsafe.Pointer(rPtr)) //alt:f32
					//alt:bf16 r0 := (*(*bfloat16.BFloat16)(unsafe.Pointer(rPtr))).Float32()
					//alt:f16 r0 := (*(*float16.Float16)(unsafe.Pointer(rPtr))).Float32()
					//alt:f64 r0 := *(*float64)(unsafe.Pointer(rPtr))
					rPtr += rhsRowBytes

					lPtr := lBase + uintptr(k)*iSize
					l0_scalar := *(*float32)(unsafe.Pointer(lPtr)) //alt:f32
					//alt:bf16 l0_scalar := (*(*bfloat16.BFloat16)(unsafe.Pointer(lPtr))).Float32()
					//alt:f16 l0_scalar := (*(*float16.Float16)(unsafe.Pointer(lPtr))).Float32()
					//alt:f64 l0_scalar := *(*float64)(unsafe.Pointer(lPtr))

					if k == 0 {
						s0 = l0_scalar * r0
					} else {
						s0 += l0_scalar * r0
					}
				}
				*(*float32)(unsafe.Pointer(outBase + uintptr(col)*oSize)) = s0 //alt:f32|bf16|f16
				//alt:f64 *(*float64)(unsafe.Pointer(outBase + uintptr(col)*oSize)) = s0
			}
		}

		lhsBase += lhsByteStride
		rhsBase += rhsByteStride
		outputBase += outputByteStride
	}
}

// avx2SmallFourRowsFloat32 computes the columns from col on of rows row to row+3 of one batch
// element of avx2SmallFloat32 (lhsBase, rhsBase and outputBase point at that element).
func avx2SmallFourRowsFloat32( //alt:f32
	//alt:bf16 func avx2SmallFourRowsBFloat16(
	//alt:f16 func avx2SmallFourRowsFloat16(
	//alt:f64 func avx2SmallFourRowsFloat64(
	lhsBase, rhsBase, outputBase uintptr, row, col, contractingSize, rhsCrossSize int) {
	var iZero float32 //alt:f32
	//alt:bf16 var iZero bfloat16.BFloat16
	//alt:f16 var iZero float16.Float16
	//alt:f64 var iZero float64
	iSize := unsafe.Sizeof(iZero)
	var oZero float32 //alt:f32|bf16|f16
	//alt:f64 var oZero float64
	oSize := unsafe.Sizeof(oZero)
	rhsRowBytes := uintptr(rhsCrossSize) * iSize
	const outputVecWidth = 8 //alt:f32|bf16|f16
	//alt:f64 const outputVecWidth = 4

	l0Base := lhsBase + uintptr((row+0)*contractingSize)*iSize
	l1Base := lhsBase + uintptr((row+1)*contractingSize)*iSize
	l2Base := lhsBase + uintptr((row+2)*contractingSize)*iSize
	l3Base := lhsBase + uintptr((row+3)*contractingSize)*iSize
	outBase0 := outputBase + uintptr((row+0)*rhsCrossSize)*oSize
	outBase1 := outputBase + uintptr((row+1)*rhsCrossSize)*oSize
	outBase2 := outputBase + uintptr((row+2)*rhsCrossSize)*oSize
	outBase3 := outputBase + uintptr((row+3)*rhsCrossSize)*oSize

	for ; col+2*outputVecWidth <= rhsCrossSize; col += 2 * outputVecWidth {
		var o0_0, o0_1, o1_0, o1_1, o2_0, o2_1, o3_0, o3_1 archsimd.Float32x8 //alt:f32|bf16|f16
		//alt:f64 var o0_0, o0_1, o1_0, o1_1, o2_0, o2_1, o3_0, o3_1 archsimd.Float64x4
		rPtr := rhsBase + uintptr(col)*iSize
		for k := 0; k < contractingSize; k++ {
			kOffset := uintptr(k) * iSize
			l0 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(l0Base + kOffset))) //alt:f32
			l1 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(l1Base + kOffset))) //alt:f32
			l2 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(l2Base + kOffset))) //alt:f32
			l3 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(l3Base + kOffset))) //alt:f32
			//alt:bf16 l0 := archsimd.BroadcastFloat32x8((*(*bfloat16.BFloat16)(unsafe.Pointer(l0Base + kOffset))).Float32())
			//alt:bf16 l1 := archsimd.BroadcastFloat32x8((*(*bfloat16.BFloat16)(unsafe.Pointer(l1Base + kOffset))).Float32())
			//alt:bf16 l2 := archsimd.BroadcastFloat32x8((*(*bfloat16.BFloat16)(unsafe.Pointer(l2Base + kOffset))).Float32())
			//alt:bf16 l3 := archsimd.BroadcastFloat32x8((*(*bfloat16.BFloat16)(unsafe.Pointer(l3Base + kOffset))).Float32())
			//alt:f16 l0 := archsimd.BroadcastFloat32x8((*(*float16.Float16)(unsafe.Pointer(l0Base + kOffset))).Float32())
			//alt:f16 l1 := archsimd.BroadcastFloat32x8((*(*float16.Float16)(unsafe.Pointer(l1Base + kOffset))).Float32())
			//alt:f16 l2 := archsimd.BroadcastFloat32x8((*(*float16.Float16)(unsafe.Pointer(l2Base + kOffset))).Float32())
			//alt:f16 l3 := archsimd.BroadcastFloat32x8((*(*float16.Float16)(unsafe.Pointer(l3Base + kOffset))).Float32())
			//alt:f64 l0 := archsimd.BroadcastFloat64x4(*(*float64)(unsafe.Pointer(l0Base + kOffset)))
			//alt:f64 l1 := archsimd.BroadcastFloat64x4(*(*float64)(unsafe.Pointer(l1Base + kOffset)))
			//alt:f64 l2 := archsimd.BroadcastFloat64x4(*(*float64)(unsafe.Pointer(l2Base + kOffset)))
			//alt:f64 l3 := archsimd.BroadcastFloat64x4(*(*float64)(unsafe.Pointer(l3Base + kOffset)))

			r0 := archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(rPtr)))                                 //alt:f32
			r1 := archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(rPtr + uintptr(outputVecWidth)*iSize))) //alt:f32
			//alt:bf16 r0, r1 := bfloat16.LoadBFloat16x16((*[16]bfloat16.BFloat16)(unsafe.Pointer(rPtr))).ToFloat32()
			//alt:f16 r0, r1 := float16.LoadFloat16x16((*[16]float16.Float16)(unsafe.Pointer(rPtr))).ToFloat32()
			//alt:f64 r0 := archsimd.LoadFloat64x4Array((*[4]float64)(unsafe.Pointer(rPtr)))
			//alt:f64 r1 := archsimd.LoadFloat64x4Array((*[4]float64)(unsafe.Pointer(rPtr + uintptr(outputVecWidth)*iSize)))
			rPtr += rhsRowBytes

			o0_0 = l0.MulAdd(r0, o0_0)
			o0_1 = l0.MulAdd(r1, o0_1)
			o1_0 = l1.MulAdd(r0, o1_0)
			o1_1 = l1.MulAdd(r1, o1_1)
			o2_0 = l2.MulAdd(r0, o2_0)
			o2_1 = l2.MulAdd(r1, o2_1)
			o3_0 = l3.MulAdd(r0, o3_0)
			o3_1 = l3.MulAdd(r1, o3_1)
		}

		colOffset := uintptr(col) * oSize
		nextOffset := uintptr(col+outputVecWidth) * oSize
		o0_0.StoreArray((*[8]float32)(unsafe.Pointer(outBase0 + colOffset)))  //alt:f32|bf16|f16
		o0_1.StoreArray((*[8]float32)(unsafe.Pointer(outBase0 + nextOffset))) //alt:f32|bf16|f16
		o1_0.StoreArray((*[8]float32)(unsafe.Pointer(outBase1 + colOffset)))  //alt:f32|bf16|f16
		o1_1.StoreArray((*[8]float32)(unsafe.Pointer(outBase1 + nextOffset))) //alt:f32|bf16|f16
		o2_0.StoreArray((*[8]float32)(unsafe.Pointer(outBase2 + colOffset)))  //alt:f32|bf16|f16
		o2_1.StoreArray((*[8]float32)(unsafe.Pointer(outBase2 + nextOffset))) //alt:f32|bf16|f16
		o3_0.StoreArray((*[8]float32)(unsafe.Pointer(outBase3 + colOffset)))  //alt:f32|bf16|f16
		o3_1.StoreArray((*[8]float32)(unsafe.Pointer(outBase3 + nextOffset))) //alt:f32|bf16|f16
		//alt:f64 o0_0.StoreArray((*[4]float64)(unsafe.Pointer(outBase0 + colOffset)))
		//alt:f64 o0_1.StoreArray((*[4]float64)(unsafe.Pointer(outBase0 + nextOffset)))
		//alt:f64 o1_0.StoreArray((*[4]float64)(unsafe.Pointer(outBase1 + colOffset)))
		//alt:f64 o1_1.StoreArray((*[4]float64)(unsafe.Pointer(outBase1 + nextOffset)))
		//alt:f64 o2_0.StoreArray((*[4]float64)(unsafe.Pointer(outBase2 + colOffset)))
		//alt:f64 o2_1.StoreArray((*[4]float64)(unsafe.Pointer(outBase2 + nextOffset)))
		//alt:f64 o3_0.StoreArray((*[4]float64)(unsafe.Pointer(outBase3 + colOffset)))
		//alt:f64 o3_1.StoreArray((*[4]float64)(unsafe.Pointer(outBase3 + nextOffset)))
	}

	for ; col+outputVecWidth <= rhsCrossSize; col += outputVecWidth {
		var o0_0, o1_0, o2_0, o3_0 archsimd.Float32x8 //alt:f32|bf16|f16
		//alt:f64 var o0_0, o1_0, o2_0, o3_0 archsimd.Float64x4
		rPtr := rhsBase + uintptr(col)*iSize
		for k := 0; k < contractingSize; k++ {
			kOffset := uintptr(k) * iSize
			l0 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(l0Base + kOffset))) //alt:f32
			l1 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(l1Base + kOffset))) //alt:f32
			l2 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(l2Base + kOffset))) //alt:f32
			l3 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(l3Base + kOffset))) //alt:f32
			//alt:bf16 l0 := archsimd.BroadcastFloat32x8((*(*bfloat16.BFloat16)(unsafe.Pointer(l0Base + kOffset))).Float32())
			//alt:bf16 l1 := archsimd.BroadcastFloat32x8((*(*bfloat16.BFloat16)(unsafe.Pointer(l1Base + kOffset))).Float32())
			//alt:bf16 l2 := archsimd.BroadcastFloat32x8((*(*bfloat16.BFloat16)(unsafe.Pointer(l2Base + kOffset))).Float32())
			//alt:bf16 l3 := archsimd.BroadcastFloat32x8((*(*bfloat16.BFloat16)(unsafe.Pointer(l3Base + kOffset))).Float32())
			//alt:f16 l0 := archsimd.BroadcastFloat32x8((*(*float16.Float16)(unsafe.Pointer(l0Base + kOffset))).Float32())
			//alt:f16 l1 := archsimd.BroadcastFloat32x8((*(*float16.Float16)(unsafe.Pointer(l1Base + kOffset))).Float32())
			//alt:f16 l2 := archsimd.BroadcastFloat32x8((*(*float16.Float16)(unsafe.Pointer(l2Base + kOffset))).Float32())
			//alt:f16 l3 := archsimd.BroadcastFloat32x8((*(*float16.Float16)(unsafe.Pointer(l3Base + kOffset))).Float32())
			//alt:f64 l0 := archsimd.BroadcastFloat64x4(*(*float64)(unsafe.Pointer(l0Base + kOffset)))
			//alt:f64 l1 := archsimd.BroadcastFloat64x4(*(*float64)(unsafe.Pointer(l1Base + kOffset)))
			//alt:f64 l2 := archsimd.BroadcastFloat64x4(*(*float64)(unsafe.Pointer(l2Base + kOffset)))
			//alt:f64 l3 := archsimd.BroadcastFloat64x4(*(*float64)(unsafe.Pointer(l3Base + kOffset)))

			r0 := archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(rPtr))) //alt:f32
			//alt:bf16 r0, _ := bfloat16.LoadBFloat16x16((*[16]bfloat16.BFloat16)(unsafe.Pointer(rPtr))).ToFloat32()
			//alt:f16 r0, _ := float16.LoadFloat16x16((*[16]float16.Float16)(unsafe.Pointer(rPtr))).ToFloat32()
			//alt:f64 r0 := archsimd.LoadFloat64x4Array((*[4]float64)(unsafe.Pointer(rPtr)))
			rPtr += rhsRowBytes

			o0_0 = l0.MulAdd(r0, o0_0)
			o1_0 = l1.MulAdd(r0, o1_0)
			o2_0 = l2.MulAdd(r0, o2_0)
			o3_0 = l3.MulAdd(r0, o3_0)
		}

		colOffset := uintptr(col) * oSize
		o0_0.StoreArray((*[8]float32)(unsafe.Pointer(outBase0 + colOffset))) //alt:f32|bf16|f16
		o1_0.StoreArray((*[8]float32)(unsafe.Pointer(outBase1 + colOffset))) //alt:f32|bf16|f16
		o2_0.StoreArray((*[8]float32)(unsafe.Pointer(outBase2 + colOffset))) //alt:f32|bf16|f16
		o3_0.StoreArray((*[8]float32)(unsafe.Pointer(outBase3 + colOffset))) //alt:f32|bf16|f16
		//alt:f64 o0_0.StoreArray((*[4]float64)(unsafe.Pointer(outBase0 + colOffset)))
		//alt:f64 o1_0.StoreArray((*[4]float64)(unsafe.Pointer(outBase1 + colOffset)))
		//alt:f64 o2_0.StoreArray((*[4]float64)(unsafe.Pointer(outBase2 + colOffset)))
		//alt:f64 o3_0.StoreArray((*[4]float64)(unsafe.Pointer(outBase3 + colOffset)))
	}

	//alt:f32{
	if col < rhsCrossSize {
		// The last columns, fewer than a vector, in one masked vector per row instead
		// of one column at a time. Each lane does what the scalar loop below does for
		// its column: the product for k = 0, then a separate multiply and add for every
		// later k (not fused), so the bits are the same.
		mask := avx2TailMaskFloat32(rhsCrossSize - col)
		rPtr := rhsBase + uintptr(col)*iSize
		var s0, s1, s2, s3 archsimd.Float32x8
		for k := 0; k < contractingSize; k++ {
			kOffset := uintptr(k) * iSize
			r0 := archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(rPtr))).Masked(mask)
			rPtr += rhsRowBytes
			p0 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(l0Base + kOffset))).Mul(r0)
			p1 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(l1Base + kOffset))).Mul(r0)
			p2 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(l2Base + kOffset))).Mul(r0)
			p3 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Pointer(l3Base + kOffset))).Mul(r0)
			if k == 0 {
				s0, s1, s2, s3 = p0, p1, p2, p3
			} else {
				s0, s1, s2, s3 = s0.Add(p0), s1.Add(p1), s2.Add(p2), s3.Add(p3)
			}
		}
		colOffset := uintptr(col) * oSize
		s0.StoreArrayMasked((*[8]float32)(unsafe.Pointer(outBase0+colOffset)), mask)
		s1.StoreArrayMasked((*[8]float32)(unsafe.Pointer(outBase1+colOffset)), mask)
		s2.StoreArrayMasked((*[8]float32)(unsafe.Pointer(outBase2+colOffset)), mask)
		s3.StoreArrayMasked((*[8]float32)(unsafe.Pointer(outBase3+colOffset)), mask)
		col = rhsCrossSize
	}
	//alt:f32}
	if col < rhsCrossSize {
		// VZEROUPPER before scalar SSE code.
		archsimd.ClearAVXUpperBits()
	}
	for ; col < rhsCrossSize; col++ {
		var s0, s1, s2, s3 float32 //alt:f32|bf16|f16
		//alt:f64 var s0, s1, s2, s3 float64
		rPtr := rhsBase + uintptr(col)*iSize
		for k := 0; k < contractingSize; k++ {
			kOffset := uintptr(k) * iSize
			r0 := *(*float32)(unsafe.Pointer(rPtr)) //alt:f32
			//alt:bf16 r0 := (*(*bfloat16.BFloat16)(unsafe.Pointer(rPtr))).Float32()
			//alt:f16 r0 := (*(*float16.Float16)(unsafe.Pointer(rPtr))).Float32()
			//alt:f64 r0 := *(*float64)(unsafe.Pointer(rPtr))
			rPtr += rhsRowBytes

			l0_scalar := *(*float32)(unsafe.Pointer(l0Base + kOffset)) //alt:f32
			l1_scalar := *(*float32)(unsafe.Pointer(l1Base + kOffset)) //alt:f32
			l2_scalar := *(*float32)(unsafe.Pointer(l2Base + kOffset)) //alt:f32
			l3_scalar := *(*float32)(unsafe.Pointer(l3Base + kOffset)) //alt:f32
			//alt:bf16 l0_scalar := (*(*bfloat16.BFloat16)(unsafe.Pointer(l0Base + kOffset))).Float32()
			//alt:bf16 l1_scalar := (*(*bfloat16.BFloat16)(unsafe.Pointer(l1Base + kOffset))).Float32()
			//alt:bf16 l2_scalar := (*(*bfloat16.BFloat16)(unsafe.Pointer(l2Base + kOffset))).Float32()
			//alt:bf16 l3_scalar := (*(*bfloat16.BFloat16)(unsafe.Pointer(l3Base + kOffset))).Float32()
			//alt:f16 l0_scalar := (*(*float16.Float16)(unsafe.Pointer(l0Base + kOffset))).Float32()
			//alt:f16 l1_scalar := (*(*float16.Float16)(unsafe.Pointer(l1Base + kOffset))).Float32()
			//alt:f16 l2_scalar := (*(*float16.Float16)(unsafe.Pointer(l2Base + kOffset))).Float32()
			//alt:f16 l3_scalar := (*(*float16.Float16)(unsafe.Pointer(l3Base + kOffset))).Float32()
			//alt:f64 l0_scalar := *(*float64)(unsafe.Pointer(l0Base + kOffset))
			//alt:f64 l1_scalar := *(*float64)(unsafe.Pointer(l1Base + kOffset))
			//alt:f64 l2_scalar := *(*float64)(unsafe.Pointer(l2Base + kOffset))
			//alt:f64 l3_scalar := *(*float64)(unsafe.Pointer(l3Base + kOffset))

			if k == 0 {
				s0, s1, s2, s3 = l0_scalar*r0, l1_scalar*r0, l2_scalar*r0, l3_scalar*r0
			} else {
				s0 += l0_scalar * r0
				s1 += l1_scalar * r0
				s2 += l2_scalar * r0
				s3 += l3_scalar * r0
			}
		}
		colOffset := uintptr(col) * oSize
		*(*float32)(unsafe.Pointer(outBase0 + colOffset)) = s0 //alt:f32|bf16|f16
		*(*float32)(unsafe.Pointer(outBase1 + colOffset)) = s1 //alt:f32|bf16|f16
		*(*float32)(unsafe.Pointer(outBase2 + colOffset)) = s2 //alt:f32|bf16|f16
		*(*float32)(unsafe.Pointer(outBase3 + colOffset)) = s3 //alt:f32|bf16|f16
		//alt:f64 *(*float64)(unsafe.Pointer(outBase0 + colOffset)) = s0
		//alt:f64 *(*float64)(unsafe.Pointer(outBase1 + colOffset)) = s1
		//alt:f64 *(*float64)(unsafe.Pointer(outBase2 + colOffset)) = s2
		//alt:f64 *(*float64)(unsafe.Pointer(outBase3 + colOffset)) = s3
	}
}

// avx2SmallFloat32Transposed implements an AVX2 matrix multiplication for small inputs.
//
// Four output columns of a row at a time, so each load of the lhs row feeds four independent
// chains of fused multiply-adds instead of one. Every output element is still the same chain in
// the same order of k, the same horizontal sum and the same scalar tail, so the results are
// bit-identical.
func avx2SmallFloat32Transposed( //alt:f32
	//alt:bf16 func avx2SmallBFloat16Transposed(
	//alt:f16 func avx2SmallFloat16Transposed(
	//alt:f64 func avx2SmallFloat64Transposed(
	lhs, rhs []float32, //alt:f32
	//alt:bf16 lhs, rhs []bfloat16.BFloat16,
	//alt:f16 lhs, rhs []float16.Float16,
	//alt:f64 lhs, rhs []float64,
	batchStart, batchCount, lhsCrossSize, rhsCrossSize, contractingSize int,
	output []float32) { //alt:f32|bf16|f16
	//alt:f64 output []float64) {

	if batchCount == 0 || lhsCrossSize == 0 || rhsCrossSize == 0 || contractingSize == 0 {
		return
	}

	lhsStride := lhsCrossSize * contractingSize
	rhsStride := contractingSize * rhsCrossSize
	outputStride := lhsCrossSize * rhsCrossSize

	var iZero float32 //alt:f32
	//alt:bf16 var iZero bfloat16.BFloat16
	//alt:f16 var iZero float16.Float16
	//alt:f64 var iZero float64
	iSize := unsafe.Sizeof(iZero)
	var oZero float32 //alt:f32|bf16|f16
	//alt:f64 var oZero float64
	oSize := unsafe.Sizeof(oZero)

	lhsPtr := uintptr(unsafe.Pointer(unsafe.SliceData(lhs)))
	rhsPtr := uintptr(unsafe.Pointer(unsafe.SliceData(rhs)))
	outputPtr := uintptr(unsafe.Pointer(unsafe.SliceData(output)))

	lhsByteStride := uintptr(lhsStride) * iSize
	rhsByteStride := uintptr(rhsStride) * iSize
	outputByteStride := uintptr(outputStride) * oSize
	rhsRowBytes := uintptr(contractingSize) * iSize

	lhsBase := lhsPtr + uintptr(batchStart)*lhsByteStride
	rhsBase := rhsPtr + uintptr(batchStart)*rhsByteStride
	outputBase := outputPtr + uintptr(batchStart)*outputByteStride

	const vecWidth = 8 //alt:f32
	//alt:bf16 const vecWidth = 16
	//alt:f16 const vecWidth = 16
	//alt:f64 const vecWidth = 4

	for range batchCount {
		// Float32 rows two at a time and columns four at a time in assembly (the loop below
		// keeps four fused multiply-add chains in flight and waits on their latency; Go's
		// compiler spills registers if it is asked for eight), with the same arithmetic per
		// output; the loop below does the rest.
		pairedRows, pairedCols := 0, 0
		//alt:f32{
		if lhsCrossSize >= 2 && rhsCrossSize >= 4 {
			pairedRows, pairedCols = lhsCrossSize&^1, rhsCrossSize&^3
			avx2TransposedPairsFloat32(lhsBase, rhsBase, outputBase, uintptr(pairedRows/2), uintptr(pairedCols/4),
				uintptr(contractingSize&^7)*iSize, rhsRowBytes, uintptr(rhsCrossSize)*oSize)
		}
		//alt:f32}
		for row := 0; row < lhsCrossSize; row++ {
			lRowBase := lhsBase + uintptr(row*contractingSize)*iSize
			col := 0
			if row < pairedRows {
				col = pairedCols
			}
			for ; col+3 < rhsCrossSize; col += 4 {
				r0Base := rhsBase + uintptr(col*contractingSize)*iSize
				r1Base := r0Base + rhsRowBytes
				r2Base := r1Base + rhsRowBytes
				r3Base := r2Base + rhsRowBytes

				var acc0, acc1, acc2, acc3 archsimd.Float32x8 //alt:f32|bf16|f16
				//alt:f64 var acc0, acc1, acc2, acc3 archsimd.Float64x4
				k := 0
				for ; k+vecWidth <= contractingSize; k += vecWidth {
					kOffset := uintptr(k) * iSize
					lVal := archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(lRowBase + kOffset))) //alt:f32
					//alt:bf16 lVal, _ := bfloat16.LoadBFloat16x16((*[16]bfloat16.BFloat16)(unsafe.Pointer(lRowBase + kOffset))).ToFloat32()
					//alt:f16 lVal, _ := float16.LoadFloat16x16((*[16]float16.Float16)(unsafe.Pointer(lRowBase + kOffset))).ToFloat32()
					//alt:f64 lVal := archsimd.LoadFloat64x4Array((*[4]float64)(unsafe.Pointer(lRowBase + kOffset)))
					r0 := archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(r0Base + kOffset))) //alt:f32
					//alt:bf16 r0, _ := bfloat16.LoadBFloat16x16((*[16]bfloat16.BFloat16)(unsafe.Pointer(r0Base + kOffset))).ToFloat32()
					//alt:f16 r0, _ := float16.LoadFloat16x16((*[16]float16.Float16)(unsafe.Pointer(r0Base + kOffset))).ToFloat32()
					//alt:f64 r0 := archsimd.LoadFloat64x4Array((*[4]float64)(unsafe.Pointer(r0Base + kOffset)))
					r1 := archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(r1Base + kOffset))) //alt:f32
					//alt:bf16 r1, _ := bfloat16.LoadBFloat16x16((*[16]bfloat16.BFloat16)(unsafe.Pointer(r1Base + kOffset))).ToFloat32()
					//alt:f16 r1, _ := float16.LoadFloat16x16((*[16]float16.Float16)(unsafe.Pointer(r1Base + kOffset))).ToFloat32()
					//alt:f64 r1 := archsimd.LoadFloat64x4Array((*[4]float64)(unsafe.Pointer(r1Base + kOffset)))
					r2 := archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(r2Base + kOffset))) //alt:f32
					//alt:bf16 r2, _ := bfloat16.LoadBFloat16x16((*[16]bfloat16.BFloat16)(unsafe.Pointer(r2Base + kOffset))).ToFloat32()
					//alt:f16 r2, _ := float16.LoadFloat16x16((*[16]float16.Float16)(unsafe.Pointer(r2Base + kOffset))).ToFloat32()
					//alt:f64 r2 := archsimd.LoadFloat64x4Array((*[4]float64)(unsafe.Pointer(r2Base + kOffset)))
					r3 := archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(r3Base + kOffset))) //alt:f32
					//alt:bf16 r3, _ := bfloat16.LoadBFloat16x16((*[16]bfloat16.BFloat16)(unsafe.Pointer(r3Base + kOffset))).ToFloat32()
					//alt:f16 r3, _ := float16.LoadFloat16x16((*[16]float16.Float16)(unsafe.Pointer(r3Base + kOffset))).ToFloat32()
					//alt:f64 r3 := archsimd.LoadFloat64x4Array((*[4]float64)(unsafe.Pointer(r3Base + kOffset)))
					acc0 = lVal.MulAdd(r0, acc0)
					acc1 = lVal.MulAdd(r1, acc1)
					acc2 = lVal.MulAdd(r2, acc2)
					acc3 = lVal.MulAdd(r3, acc3)
				}

				// float32 accumulators' four horizontal sums together, in the same order.
				var sums [4]float32                                               //alt:f32|bf16|f16
				avx2ReduceSum4Float32x8(acc0, acc1, acc2, acc3).StoreArray(&sums) //alt:f32|bf16|f16
				archsimd.ClearAVXUpperBits()                                      //alt:f32|bf16|f16
				res0, res1, res2, res3 := sums[0], sums[1], sums[2], sums[3]      //alt:f32|bf16|f16
				//alt:f64 res0 := avx2ReduceSumFloat64x4(acc0)
				//alt:f64 res1 := avx2ReduceSumFloat64x4(acc1)
				//alt:f64 res2 := avx2ReduceSumFloat64x4(acc2)
				//alt:f64 res3 := avx2ReduceSumFloat64x4(acc3)
				for ; k < contractingSize; k++ {
					kOffset := uintptr(k) * iSize
					lVal := *(*float32)(unsafe.Pointer(lRowBase + kOffset)) //alt:f32
					//alt:bf16 lVal := (*(*bfloat16.BFloat16)(unsafe.Pointer(lRowBase + kOffset))).Float32()
					//alt:f16 lVal := (*(*float16.Float16)(unsafe.Pointer(lRowBase + kOffset))).Float32()
					//alt:f64 lVal := *(*float64)(unsafe.Pointer(lRowBase + kOffset))
					r0 := *(*float32)(unsafe.Pointer(r0Base + kOffset)) //alt:f32
					//alt:bf16 r0 := (*(*bfloat16.BFloat16)(unsafe.Pointer(r0Base + kOffset))).Float32()
					//alt:f16 r0 := (*(*float16.Float16)(unsafe.Pointer(r0Base + kOffset))).Float32()
					//alt:f64 r0 := *(*float64)(unsafe.Pointer(r0Base + kOffset))
					r1 := *(*float32)(unsafe.Pointer(r1Base + kOffset)) //alt:f32
					//alt:bf16 r1 := (*(*bfloat16.BFloat16)(unsafe.Pointer(r1Base + kOffset))).Float32()
					//alt:f16 r1 := (*(*float16.Float16)(unsafe.Pointer(r1Base + kOffset))).Float32()
					//alt:f64 r1 := *(*float64)(unsafe.Pointer(r1Base + kOffset))
					r2 := *(*float32)(unsafe.Pointer(r2Base + kOffset)) //alt:f32
					//alt:bf16 r2 := (*(*bfloat16.BFloat16)(unsafe.Pointer(r2Base + kOffset))).Float32()
					//alt:f16 r2 := (*(*float16.Float16)(unsafe.Pointer(r2Base + kOffset))).Float32()
					//alt:f64 r2 := *(*float64)(unsafe.Pointer(r2Base + kOffset))
					r3 := *(*float32)(unsafe.Pointer(r3Base + kOffset)) //alt:f32
					//alt:bf16 r3 := (*(*bfloat16.BFloat16)(unsafe.Pointer(r3Base + kOffset))).Float32()
					//alt:f16 r3 := (*(*float16.Float16)(unsafe.Pointer(r3Base + kOffset))).Float32()
					//alt:f64 r3 := *(*float64)(unsafe.Pointer(r3Base + kOffset))
					res0 += lVal * r0
					res1 += lVal * r1
					res2 += lVal * r2
					res3 += lVal * r3
				}

				outputIdx := outputBase + uintptr(row*rhsCrossSize+col)*oSize
				*(*float32)(unsafe.Pointer(outputIdx + 0*oSize)) = res0 //alt:f32|bf16|f16
				*(*float32)(unsafe.Pointer(outputIdx + 1*oSize)) = res1 //alt:f32|bf16|f16
				*(*float32)(unsafe.Pointer(outputIdx + 2*oSize)) = res2 //alt:f32|bf16|f16
				*(*float32)(unsafe.Pointer(outputIdx + 3*oSize)) = res3 //alt:f32|bf16|f16
				//alt:f64 *(*float64)(unsafe.Pointer(outputIdx + 0*oSize)) = res0
				//alt:f64 *(*float64)(unsafe.Pointer(outputIdx + 1*oSize)) = res1
				//alt:f64 *(*float64)(unsafe.Pointer(outputIdx + 2*oSize)) = res2
				//alt:f64 *(*float64)(unsafe.Pointer(outputIdx + 3*oSize)) = res3
			}

			for ; col < rhsCrossSize; col++ {
				rColBase := rhsBase + uintptr(col*contractingSize)*iSize
				var acc archsimd.Float32x8 //alt:f32|bf16|f16
				//alt:f64 var acc archsimd.Float64x4
				k := 0
				for ; k+vecWidth <= contractingSize; k += vecWidth {
					kOffset := uintptr(k) * iSize
					lVal := archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(lRowBase + kOffset))) //alt:f32
					//alt:bf16 lVal, _ := bfloat16.LoadBFloat16x16((*[16]bfloat16.BFloat16)(unsafe.Pointer(lRowBase + kOffset))).ToFloat32()
					//alt:f16 lVal, _ := float16.LoadFloat16x16((*[16]float16.Float16)(unsafe.Pointer(lRowBase + kOffset))).ToFloat32()
					//alt:f64 lVal := archsimd.LoadFloat64x4Array((*[4]float64)(unsafe.Pointer(lRowBase + kOffset)))
					rVal := archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(rColBase + kOffset))) //alt:f32
					//alt:bf16 rVal, _ := bfloat16.LoadBFloat16x16((*[16]bfloat16.BFloat16)(unsafe.Pointer(rColBase + kOffset))).ToFloat32()
					//alt:f16 rVal, _ := float16.LoadFloat16x16((*[16]float16.Float16)(unsafe.Pointer(rColBase + kOffset))).ToFloat32()
					//alt:f64 rVal := archsimd.LoadFloat64x4Array((*[4]float64)(unsafe.Pointer(rColBase + kOffset)))
					acc = lVal.MulAdd(rVal, acc)
				}

				res := avx2ReduceSumFloat32x8(acc) //alt:f32|bf16|f16
				//alt:f64 res := avx2ReduceSumFloat64x4(acc)
				for ; k < contractingSize; k++ {
					kOffset := uintptr(k) * iSize
					lVal := *(*float32)(unsafe.Pointer(lRowBase + kOffset)) //alt:f32
					//alt:bf16 lVal := (*(*bfloat16.BFloat16)(unsafe.Pointer(lRowBase + kOffset))).Float32()
					//alt:f16 lVal := (*(*float16.Float16)(unsafe.Pointer(lRowBase + kOffset))).Float32()
					//alt:f64 lVal := *(*float64)(unsafe.Pointer(lRowBase + kOffset))
					rVal := *(*float32)(unsafe.Pointer(rColBase + kOffset)) //alt:f32
					//alt:bf16 rVal := (*(*bfloat16.BFloat16)(unsafe.Pointer(rColBase + kOffset))).Float32()
					//alt:f16 rVal := (*(*float16.Float16)(unsafe.Pointer(rColBase + kOffset))).Float32()
					//alt:f64 rVal := *(*float64)(unsafe.Pointer(rColBase + kOffset))
					res += lVal * rVal
				}

				outputIdx := outputBase + uintptr(row*rhsCrossSize+col)*oSize
				*(*float32)(unsafe.Pointer(outputIdx)) = res //alt:f32|bf16|f16
				//alt:f64 *(*float64)(unsafe.Pointer(outputIdx)) = res
			}
		}
		lhsBase += lhsByteStride
		rhsBase += rhsByteStride
		outputBase += outputByteStride
	}
}

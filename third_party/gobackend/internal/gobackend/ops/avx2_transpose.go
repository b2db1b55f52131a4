//go:build amd64 && goexperiment.simd

package ops

// A float32 matrix transposed ([rows, cols] with the permutation [1, 0]; autodiff's operands of
// the weight gradients in training) 8 × 8 blocks at a time with AVX2 shuffles; the edges and
// every other transposition go to execTransposeGeneric. A transpose only moves values, so the
// output is the same bits.

import (
	"simd/archsimd"
	"unsafe"

	"github.com/gomlx/compute/dtypes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

func init() {
	if archsimd.X86.AVX2() {
		TransposeDTypeMap.Register(dtypes.Float32, gobackend.PriorityArch, avx2TransposeFloat32)
	}
}

func avx2TransposeFloat32(operand, output *gobackend.Buffer, it *TransposeIterator) {
	if len(it.dimensions) != 2 || it.perAxisStrides[0] != 1 || it.perAxisStrides[1] != it.dimensions[0] {
		execTransposeGeneric[float32](operand, output, it)
		return
	}
	in, out := operand.Flat.([]float32), output.Flat.([]float32)
	rows, cols := it.dimensions[0], it.dimensions[1]
	blockRows, blockCols := rows&^7, cols&^7
	for i := 0; i < blockRows; i += 8 {
		for j := 0; j < blockCols; j += 8 {
			avx2Transpose8x8Float32(in[i*cols+j:], cols, out[j*rows+i:], rows)
		}
	}
	archsimd.ClearAVXUpperBits() // the scalar SSE code that follows pays no transition penalty
	for i := range rows {
		for j := blockCols; j < cols; j++ {
			out[j*rows+i] = in[i*cols+j]
		}
	}
	for i := blockRows; i < rows; i++ {
		for j := range blockCols {
			out[j*rows+i] = in[i*cols+j]
		}
	}
}

// avx2Transpose8x8Float32 writes the transpose of the 8 × 8 block at in (rows inStride apart)
// to out (rows outStride apart).
func avx2Transpose8x8Float32(in []float32, inStride int, out []float32, outStride int) {
	_ = in[7*inStride+7]
	_ = out[7*outStride+7]
	row := func(r int) archsimd.Uint32x8 {
		return archsimd.LoadFloat32x8Array((*[8]float32)(unsafe.Pointer(&in[r*inStride]))).AsUint32x8()
	}
	r0, r1, r2, r3, r4, r5, r6, r7 := row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)
	// Pairs of rows interleaved: [a0 b0 a1 b1 | a4 b4 a5 b5], [a2 b2 a3 b3 | a6 b6 a7 b7], ...
	t0, t1 := r0.InterleaveLoGrouped(r1).AsUint64x4(), r0.InterleaveHiGrouped(r1).AsUint64x4()
	t2, t3 := r2.InterleaveLoGrouped(r3).AsUint64x4(), r2.InterleaveHiGrouped(r3).AsUint64x4()
	t4, t5 := r4.InterleaveLoGrouped(r5).AsUint64x4(), r4.InterleaveHiGrouped(r5).AsUint64x4()
	t6, t7 := r6.InterleaveLoGrouped(r7).AsUint64x4(), r6.InterleaveHiGrouped(r7).AsUint64x4()
	// Quadruples: [a0 b0 c0 d0 | a4 b4 c4 d4], [a1 b1 c1 d1 | a5 b5 c5 d5], ...
	u0, u1 := t0.InterleaveLoGrouped(t2).AsFloat32x8(), t0.InterleaveHiGrouped(t2).AsFloat32x8()
	u2, u3 := t1.InterleaveLoGrouped(t3).AsFloat32x8(), t1.InterleaveHiGrouped(t3).AsFloat32x8()
	u4, u5 := t4.InterleaveLoGrouped(t6).AsFloat32x8(), t4.InterleaveHiGrouped(t6).AsFloat32x8()
	u6, u7 := t5.InterleaveLoGrouped(t7).AsFloat32x8(), t5.InterleaveHiGrouped(t7).AsFloat32x8()
	store := func(c int, v archsimd.Float32x8) {
		v.StoreArray((*[8]float32)(unsafe.Pointer(&out[c*outStride])))
	}
	// Columns: the low halves of a quadruple pair make column c, the high halves column c+4.
	store(0, u0.ConcatPermute128Scalars(0, 2, u4))
	store(4, u0.ConcatPermute128Scalars(1, 3, u4))
	store(1, u1.ConcatPermute128Scalars(0, 2, u5))
	store(5, u1.ConcatPermute128Scalars(1, 3, u5))
	store(2, u2.ConcatPermute128Scalars(0, 2, u6))
	store(6, u2.ConcatPermute128Scalars(1, 3, u6))
	store(3, u3.ConcatPermute128Scalars(0, 2, u7))
	store(7, u3.ConcatPermute128Scalars(1, 3, u7))
}

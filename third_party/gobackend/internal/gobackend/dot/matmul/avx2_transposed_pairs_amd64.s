// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

//go:build amd64 && goexperiment.simd

#include "textflag.h"

// The full vectors of avx2SmallFloat32Transposed for two lhs rows and four rhs rows (output
// columns) at a time.
//
// func avx2TransposedPairsFloat32(lhs, rhs, out unsafe.Pointer, rowPairs, colGroups, vectorKBytes, rowBytes, outRowBytes uintptr)
//
// For each pair of lhs rows (rowBytes apart) and each group of four rhs rows (the output
// columns, rowBytes apart), eight accumulators, one per output, each lane a chain of fused
// multiply-adds from zero over its k, in order of k, for the first vectorKBytes/32 full
// vectors; each output is then the accumulator's horizontal sum in avx2ReduceSumFloat32x8's
// order (the upper half onto the lower, then in pairs), four at a time as
// avx2ReduceSum4Float32x8 takes them; then, for each k after the last full vector (up to
// rowBytes/4, the rows' length), the product added to it, multiply and add rounded
// separately, as the scalar loop does. A group's four outputs go to out (4 floats per group,
// rows outRowBytes apart). rowPairs, in the argument frame, counts down.
TEXT ·avx2TransposedPairsFloat32(SB), NOSPLIT, $0-64
	MOVQ lhs+0(FP), AX         // lhs row 2i
	MOVQ out+16(FP), R8        // out row 2i
	MOVQ vectorKBytes+40(FP), DI
	ADDQ AX, DI                // end of row 2i's full vectors
	MOVQ rowBytes+48(FP), DX
	LEAQ (DX)(DX*2), R10       // 3 rows
	MOVQ outRowBytes+56(FP), R11

rowLoop:
	CMPQ  rowPairs+24(FP), $0
	JEQ   done
	LEAQ  (AX)(DX*1), R9       // end of row 2i
	MOVQ  rhs+8(FP), CX        // rhs row 4c
	MOVQ  colGroups+32(FP), R13
	MOVQ  R8, R12              // out row 2i, group c

colLoop:
	TESTQ  R13, R13
	JZ     nextRows
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   AX, SI
	MOVQ   CX, BX
	JMP    kCheck

kLoop:
	VMOVUPS     (SI), Y8         // lhs row 2i
	VMOVUPS     (SI)(DX*1), Y9   // lhs row 2i+1
	VMOVUPS     (BX), Y10        // rhs row 4c
	VFMADD231PS Y10, Y8, Y0
	VFMADD231PS Y10, Y9, Y4
	VMOVUPS     (BX)(DX*1), Y11  // rhs row 4c+1
	VFMADD231PS Y11, Y8, Y1
	VFMADD231PS Y11, Y9, Y5
	VMOVUPS     (BX)(DX*2), Y12  // rhs row 4c+2
	VFMADD231PS Y12, Y8, Y2
	VFMADD231PS Y12, Y9, Y6
	VMOVUPS     (BX)(R10*1), Y13 // rhs row 4c+3
	VFMADD231PS Y13, Y8, Y3
	VFMADD231PS Y13, Y9, Y7
	ADDQ        $32, SI
	ADDQ        $32, BX

kCheck:
	CMPQ SI, DI
	JB   kLoop

	// Row 2i: [Σ Y0, Σ Y1, Σ Y2, Σ Y3].
	VEXTRACTF128 $1, Y0, X8
	VADDPS       X0, X8, X8    // upper half + lower half
	VEXTRACTF128 $1, Y1, X9
	VADDPS       X1, X9, X9
	VHADDPS      X9, X8, X8    // in pairs: [a0+a1, a2+a3, b0+b1, b2+b3]
	VEXTRACTF128 $1, Y2, X10
	VADDPS       X2, X10, X10
	VEXTRACTF128 $1, Y3, X11
	VADDPS       X3, X11, X11
	VHADDPS      X11, X10, X10
	VHADDPS      X10, X8, X8   // [(a0+a1)+(a2+a3), (b0+b1)+(b2+b3), ...]

	// Row 2i+1: [Σ Y4, Σ Y5, Σ Y6, Σ Y7].
	VEXTRACTF128 $1, Y4, X12
	VADDPS       X4, X12, X12
	VEXTRACTF128 $1, Y5, X9
	VADDPS       X5, X9, X9
	VHADDPS      X9, X12, X12
	VEXTRACTF128 $1, Y6, X10
	VADDPS       X6, X10, X10
	VEXTRACTF128 $1, Y7, X11
	VADDPS       X7, X11, X11
	VHADDPS      X11, X10, X10
	VHADDPS      X10, X12, X12

	// The k after the last full vector, one at a time for the four columns together.
tailLoop:
	CMPQ         SI, R9
	JAE          store
	VMOVSS       (BX), X13
	VINSERTPS    $0x10, (BX)(DX*1), X13, X13
	VINSERTPS    $0x20, (BX)(DX*2), X13, X13
	VINSERTPS    $0x30, (BX)(R10*1), X13, X13 // [r0, r1, r2, r3] at this k
	VBROADCASTSS (SI), X14
	VMULPS       X13, X14, X14
	VADDPS       X14, X8, X8
	VBROADCASTSS (SI)(DX*1), X14
	VMULPS       X13, X14, X14
	VADDPS       X14, X12, X12
	ADDQ         $4, SI
	ADDQ         $4, BX
	JMP          tailLoop

store:
	VMOVUPS X8, (R12)
	VMOVUPS X12, (R12)(R11*1)

	ADDQ $16, R12
	LEAQ (CX)(DX*4), CX
	DECQ R13
	JMP  colLoop

nextRows:
	LEAQ (AX)(DX*2), AX
	LEAQ (DI)(DX*2), DI
	LEAQ (R8)(R11*2), R8
	DECQ rowPairs+24(FP)
	JMP  rowLoop

done:
	VZEROUPPER
	RET

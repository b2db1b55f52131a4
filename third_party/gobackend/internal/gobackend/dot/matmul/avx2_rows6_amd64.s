// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

//go:build amd64 && goexperiment.simd

#include "textflag.h"

// Six lhs rows of avx2SmallFloat32 (rhs not transposed), 16 output columns at a time.
//
// func avx2Rows6Float32(lhs, rhs, out, k, colGroups, lhsRowBytes, rhsRowBytes, outRowBytes uintptr)
//
// For each of colGroups groups of 16 columns (rhs and out advance 64 bytes a group), twelve
// accumulators (six rows × two vectors of 8 columns), each a chain of fused multiply-adds
// from zero in order of k (lhs[row][p] broadcast times the rhs row p's 8 columns, plus the
// accumulator), as the Go loops of avx2SmallFloat32 compute a column vector; k ≥ 1. Twelve
// chains in flight and eight loads per twelve multiply-adds, where the Go loop of four rows
// has eight chains, six loads per eight and the address arithmetic of its four rows (Go's
// compiler spills registers with six rows). It uses neither R14 nor R15.
TEXT ·avx2Rows6Float32(SB), NOSPLIT, $0-64
	MOVQ lhs+0(FP), AX
	MOVQ rhs+8(FP), BX
	MOVQ out+16(FP), CX
	MOVQ k+24(FP), DX
	MOVQ colGroups+32(FP), SI
	MOVQ lhsRowBytes+40(FP), R11
	MOVQ rhsRowBytes+48(FP), DI
	MOVQ outRowBytes+56(FP), R13

groupLoop:
	TESTQ  SI, SI
	JZ     done
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	MOVQ   AX, R8            // lhs rows 0-2, element p
	LEAQ   (AX)(R11*2), R12
	ADDQ   R11, R12          // lhs rows 3-5, element p
	MOVQ   BX, R9            // rhs row p, this group's columns
	MOVQ   DX, R10           // k left

kLoop:
	VMOVUPS      (R9), Y12
	VMOVUPS      32(R9), Y13
	VBROADCASTSS (R8), Y14
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VBROADCASTSS (R8)(R11*1), Y14
	VFMADD231PS  Y12, Y14, Y2
	VFMADD231PS  Y13, Y14, Y3
	VBROADCASTSS (R8)(R11*2), Y14
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VBROADCASTSS (R12), Y14
	VFMADD231PS  Y12, Y14, Y6
	VFMADD231PS  Y13, Y14, Y7
	VBROADCASTSS (R12)(R11*1), Y14
	VFMADD231PS  Y12, Y14, Y8
	VFMADD231PS  Y13, Y14, Y9
	VBROADCASTSS (R12)(R11*2), Y14
	VFMADD231PS  Y12, Y14, Y10
	VFMADD231PS  Y13, Y14, Y11
	ADDQ         $4, R8
	ADDQ         $4, R12
	ADDQ         DI, R9
	DECQ         R10
	JNZ          kLoop

	LEAQ    (CX)(R13*2), R12
	ADDQ    R13, R12         // output rows 3-5
	VMOVUPS Y0, (CX)
	VMOVUPS Y1, 32(CX)
	VMOVUPS Y2, (CX)(R13*1)
	VMOVUPS Y3, 32(CX)(R13*1)
	VMOVUPS Y4, (CX)(R13*2)
	VMOVUPS Y5, 32(CX)(R13*2)
	VMOVUPS Y6, (R12)
	VMOVUPS Y7, 32(R12)
	VMOVUPS Y8, (R12)(R13*1)
	VMOVUPS Y9, 32(R12)(R13*1)
	VMOVUPS Y10, (R12)(R13*2)
	VMOVUPS Y11, 32(R12)(R13*2)
	ADDQ    $64, BX
	ADDQ    $64, CX
	DECQ    SI
	JMP     groupLoop

done:
	VZEROUPPER
	RET

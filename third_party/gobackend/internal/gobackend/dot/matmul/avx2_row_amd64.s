// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

//go:build amd64 && goexperiment.simd

#include "textflag.h"

// A single lhs row of avx2SmallFloat32 (rhs not transposed), 64 output columns at a time.
//
// func avx2RowFloat32(lhs, rhs, out, k, colGroups, rhsRowBytes uintptr)
//
// For each of colGroups groups of 64 columns (rhs and out advance 256 bytes a group), eight
// accumulators of 8 columns, each a chain of fused multiply-adds from zero in order of k
// (lhs[p] broadcast times the rhs row p's 8 columns, plus the accumulator), as the Go loops
// of avx2SmallFloat32 compute a column vector; k ≥ 1. Eight chains in flight instead of the
// Go loop's four (Go's compiler spills registers with eight).
TEXT ·avx2RowFloat32(SB), NOSPLIT, $0-48
	MOVQ lhs+0(FP), AX
	MOVQ rhs+8(FP), BX
	MOVQ out+16(FP), CX
	MOVQ k+24(FP), DX
	MOVQ colGroups+32(FP), SI
	MOVQ rhsRowBytes+40(FP), DI

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
	MOVQ   AX, R8  // lhs[p]
	MOVQ   BX, R9  // rhs row p, this group's columns
	MOVQ   DX, R10 // k left

kLoop:
	VBROADCASTSS (R8), Y8
	VFMADD231PS  (R9), Y8, Y0
	VFMADD231PS  32(R9), Y8, Y1
	VFMADD231PS  64(R9), Y8, Y2
	VFMADD231PS  96(R9), Y8, Y3
	VFMADD231PS  128(R9), Y8, Y4
	VFMADD231PS  160(R9), Y8, Y5
	VFMADD231PS  192(R9), Y8, Y6
	VFMADD231PS  224(R9), Y8, Y7
	ADDQ         $4, R8
	ADDQ         DI, R9
	DECQ         R10
	JNZ          kLoop

	VMOVUPS Y0, (CX)
	VMOVUPS Y1, 32(CX)
	VMOVUPS Y2, 64(CX)
	VMOVUPS Y3, 96(CX)
	VMOVUPS Y4, 128(CX)
	VMOVUPS Y5, 160(CX)
	VMOVUPS Y6, 192(CX)
	VMOVUPS Y7, 224(CX)
	ADDQ    $256, BX
	ADDQ    $256, CX
	DECQ    SI
	JMP     groupLoop

done:
	VZEROUPPER
	RET

// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

//go:build amd64 && goexperiment.simd

#include "textflag.h"

// The processor's XINUSE bitmap (XGETBV with ECX = 1), when CPUID says the processor has it
// (leaf 0xD, sub-leaf 1, EAX bit 2).
//
// func upperVectorStateInUse() (supported bool, xinuse uint64)
TEXT ·upperVectorStateInUse(SB), NOSPLIT, $0-16
	MOVL $0xD, AX
	MOVL $1, CX
	CPUID
	TESTL $4, AX
	JZ    unsupported
	MOVL $1, CX
	XGETBV
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, xinuse+8(FP)
	MOVB $1, supported+0(FP)
	RET

unsupported:
	MOVQ $0, xinuse+8(FP)
	MOVB $0, supported+0(FP)
	RET

// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

//go:build amd64 && goexperiment.simd

package matmul

// upperVectorStateInUse returns the processor's XINUSE bitmap for the calling thread: bit 2 is
// set while the upper halves of the 256-bit registers may be non-zero, bit 6 while the upper
// halves of the 512-bit registers may be (what VZEROUPPER clears). supported is false where the
// processor cannot report it. It is in upper_state_amd64.s; TestProductsLeaveUpperStateClean
// uses it.
func upperVectorStateInUse() (supported bool, xinuse uint64)

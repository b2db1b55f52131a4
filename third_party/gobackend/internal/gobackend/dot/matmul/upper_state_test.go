// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

//go:build amd64 && goexperiment.simd

package matmul

// Every AVX2 and AVX-512 product returns with the upper halves of the vector registers
// cleared (VZEROUPPER), because Go's scalar float code after it (math.Exp, the elementwise
// loops) uses legacy SSE instructions, which processors penalise while those halves are set:
// 850 ns an exponential on an AMD Zen 3, a small MLP's training 10× slower on an Intel
// AVX-512 machine. The test reads the processor's own record of that state (XINUSE) on the
// thread that ran the kernels.

import (
	"runtime"
	"simd/archsimd"
	"testing"

	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend/dot"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend/workerspool"
)

func TestProductsLeaveUpperStateClean(t *testing.T) {
	if supported, _ := upperVectorStateInUse(); !supported {
		t.Skip("this processor cannot report its vector state (XGETBV with ECX = 1)")
	}
	// The kernels' workers run on the calling thread (no parallelism), so that thread's state
	// is the one they leave behind; each check locks its goroutine to its thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	backend := &gobackend.Backend{Workers: workerspool.New()}
	backend.Workers.SetMaxParallelism(0)
	defer func() { ForceSmallVariant, ForceLargeVariant = false, false }()

	const upperInUse = 1<<2 | 1<<6 // the upper halves of the YMM and of the ZMM registers
	var sink [8]float32
	dirty := func() {
		archsimd.BroadcastFloat32x8(1).StoreArray(&sink)
	}
	// The probe must see what a 256-bit instruction leaves behind, and what VZEROUPPER clears:
	// a processor may report a state component in use when it is not (Intel SDM, 13.6), and
	// then it cannot tell this test anything.
	dirty()
	_, afterBroadcast := upperVectorStateInUse()
	archsimd.ClearAVXUpperBits()
	_, afterClear := upperVectorStateInUse()
	if afterBroadcast&(1<<2) == 0 || afterClear&upperInUse != 0 {
		t.Skipf("this processor's XINUSE does not follow the upper halves (%#x after a 256-bit broadcast, %#x after VZEROUPPER)",
			afterBroadcast, afterClear)
	}

	// batch 2, m = 5, n = 37, k = 33: full vectors and scalar tails on both axes.
	const batch, m, n, k = 2, 5, 37, 33
	fill := func(size int) ([]float32, []float64) {
		f32, f64 := make([]float32, size), make([]float64, size)
		for i := range size {
			f32[i] = float32(i%7) - 3
			f64[i] = float64(i%7) - 3
		}
		return f32, f64
	}
	lhs32, lhs64 := fill(batch * m * k)
	rhs32, rhs64 := fill(batch * k * n)
	out32, out64 := make([]float32, batch*m*n), make([]float64, batch*m*n)
	for _, router := range []struct {
		name      string
		available bool
		product   func(layout dot.Layout)
	}{
		{"avx2/float32", archsimd.X86.AVX2(), func(layout dot.Layout) {
			avx2RouterFloat32(backend, layout, lhs32, rhs32, batch, m, n, k, out32)
		}},
		{"avx2/float64", archsimd.X86.AVX2(), func(layout dot.Layout) {
			avx2RouterFloat64(backend, layout, lhs64, rhs64, batch, m, n, k, out64)
		}},
		{"avx512/float32", archsimd.X86.AVX512(), func(layout dot.Layout) {
			avx512RouterFloat32(backend, layout, lhs32, rhs32, batch, m, n, k, out32)
		}},
		{"avx512/float64", archsimd.X86.AVX512(), func(layout dot.Layout) {
			avx512RouterFloat64(backend, layout, lhs64, rhs64, batch, m, n, k, out64)
		}},
	} {
		for _, large := range []bool{false, true} {
			for _, layout := range []dot.Layout{dot.LayoutNonTransposed, dot.LayoutTransposed} {
				name := router.name + "/small/" + layout.String()
				if large {
					name = router.name + "/large/" + layout.String()
				}
				t.Run(name, func(t *testing.T) {
					if !router.available {
						t.Skip("not supported by this processor")
					}
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					ForceSmallVariant, ForceLargeVariant = !large, large
					dirty()
					router.product(layout)
					if _, xinuse := upperVectorStateInUse(); xinuse&upperInUse != 0 {
						t.Errorf("XINUSE %#x after the product, want bits 2 and 6 clear", xinuse)
					}
				})
			}
		}
	}
}

// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

//go:build amd64 && goexperiment.simd

package matmul

import (
	"fmt"
	"simd/archsimd"
	"testing"

	"github.com/gomlx/compute/support/envutil"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend/dot"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend/workerspool"
)

func TestAVX512KernelsChosen(t *testing.T) {
	for _, tc := range []struct {
		setting   string
		hasAVX512 bool
		want      bool
		wantErr   bool
	}{
		{setting: "", hasAVX512: true, want: false},
		{setting: "", hasAVX512: false, want: false},
		{setting: "true", hasAVX512: true, want: true},
		{setting: "1", hasAVX512: true, want: true},
		{setting: "true", hasAVX512: false, want: false},
		{setting: "false", hasAVX512: true, want: false},
		{setting: "0", hasAVX512: true, want: false},
		{setting: "fast", hasAVX512: true, want: false, wantErr: true},
	} {
		t.Run(fmt.Sprintf("%q/avx512=%v", tc.setting, tc.hasAVX512), func(t *testing.T) {
			t.Setenv(envutil.GoBackendSIMD_AVX512, tc.setting)
			got, err := avx512KernelsChosen(tc.hasAVX512)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want an error: %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("AVX-512 kernels chosen: %v, want %v", got, tc.want)
			}
		})
	}
}

// BenchmarkKernelChoice times the AVX2 and the AVX-512 kernels on the products of a small
// MLP (30 → 128 → 64 → 30), one row and a batch of 64, in both layouts, on one thread: what
// avx512KernelsChosen's rule rests on, measured on the processor at hand.
//
//	GOEXPERIMENT=simd go test -run '^$' -bench KernelChoice ./internal/gobackend/dot/matmul
func BenchmarkKernelChoice(b *testing.B) {
	backend := &gobackend.Backend{Workers: workerspool.New()}
	backend.Workers.SetMaxParallelism(0)
	for _, kernels := range []struct {
		name      string
		available bool
		router    func(*gobackend.Backend, dot.Layout, []float32, []float32, int, int, int, int, []float32)
	}{
		{"avx2", archsimd.X86.AVX2(), avx2RouterFloat32},
		{"avx512", archsimd.X86.AVX512(), avx512RouterFloat32},
	} {
		for _, layout := range []dot.Layout{dot.LayoutNonTransposed, dot.LayoutTransposed} {
			for _, size := range [][3]int{{1, 30, 128}, {1, 128, 64}, {64, 30, 128}, {64, 128, 64}, {64, 64, 30}} {
				m, k, n := size[0], size[1], size[2]
				b.Run(fmt.Sprintf("%s/%s/%dx%dx%d", kernels.name, layout, m, k, n), func(b *testing.B) {
					if !kernels.available {
						b.Skip("not supported by this processor")
					}
					lhs, rhs, out := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
					for i := range lhs {
						lhs[i] = float32(i%13) - 6
					}
					for i := range rhs {
						rhs[i] = float32(i%11) - 5
					}
					for b.Loop() {
						kernels.router(backend, layout, lhs, rhs, 1, m, n, k, out)
					}
				})
			}
		}
	}
}

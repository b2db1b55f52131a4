package simd

import "testing"

// The kernel set follows the backend's rule: AVX2 by default where it can run, AVX-512 only
// when GOMLX_GO_SIMD_AVX512 asks and the processor has it, plain Go when the kernels cannot run
// or the environment switches them off.
func TestKernelSet(t *testing.T) {
	for _, tc := range []struct {
		name         string
		avx2, avx512 bool
		env          map[string]string
		want         string
	}{
		{"no vector kernels", false, false, nil, Generic},
		{"AVX2 processor", true, false, nil, AVX2},
		{"AVX-512 processor: AVX2 by default", true, true, nil, AVX2},
		{"AVX-512 asked for", true, true, map[string]string{"GOMLX_GO_SIMD_AVX512": "true"}, AVX512},
		{"AVX-512 asked for, not there", true, false, map[string]string{"GOMLX_GO_SIMD_AVX512": "1"}, AVX2},
		{"AVX2 switched off", true, false, map[string]string{"GOMLX_GO_SIMD_AVX2": "false"}, Generic},
		{"AVX2 switched off, AVX-512 asked for", true, true, map[string]string{"GOMLX_GO_SIMD_AVX2": "off", "GOMLX_GO_SIMD_AVX512": "on"}, AVX512},
		{"matrix kernels off", true, true, map[string]string{"GOMLX_DOT_MATMUL": "0", "GOMLX_GO_SIMD_AVX512": "true"}, Generic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, name := range []string{"GOMLX_GO_SIMD_AVX512", "GOMLX_GO_SIMD_AVX2", "GOMLX_DOT_MATMUL"} {
				t.Setenv(name, tc.env[name])
			}
			if got := kernelSet(tc.avx2, tc.avx512); got != tc.want {
				t.Errorf("kernelSet(avx2 %v, avx512 %v) with %v = %q, want %q", tc.avx2, tc.avx512, tc.env, got, tc.want)
			}
		})
	}
}

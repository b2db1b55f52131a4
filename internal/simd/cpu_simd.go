//go:build amd64 && goexperiment.simd

package simd

import "simd/archsimd"

// cpuFeatures says whether the processor has AVX2 and AVX-512, as the backend's kernels ask.
func cpuFeatures() (avx2, avx512 bool) { return archsimd.X86.AVX2(), archsimd.X86.AVX512() }

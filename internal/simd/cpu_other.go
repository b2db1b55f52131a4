//go:build !(amd64 && goexperiment.simd)

package simd

// cpuFeatures: without GOEXPERIMENT=simd on amd64 the backend has no vector kernels to run.
func cpuFeatures() (avx2, avx512 bool) { return false, false }

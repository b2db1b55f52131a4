//go:build goexperiment.simd

package backend

// SIMD reports whether this binary was built with GOEXPERIMENT=simd, which lets the pure-Go
// backend use its AVX2/AVX-512 kernels on amd64 (see docs/SPEED.md).
const SIMD = true

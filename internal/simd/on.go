//go:build goexperiment.simd

package simd

// Enabled reports whether this binary was built with GOEXPERIMENT=simd, which lets the pure-Go
// backend use its AVX2/AVX-512 kernels on amd64.
const Enabled = true

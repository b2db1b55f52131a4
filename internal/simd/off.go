//go:build !goexperiment.simd

// Package simd says whether this binary was built with GOEXPERIMENT=simd (see docs/SPEED.md),
// and which matrix kernels the pure-Go backend runs.
package simd

// Enabled reports whether this binary was built with GOEXPERIMENT=simd, which lets the pure-Go
// backend use its AVX2/AVX-512 kernels on amd64.
const Enabled = false

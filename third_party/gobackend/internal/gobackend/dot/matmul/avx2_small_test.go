// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

//go:build amd64 && goexperiment.simd

package matmul

// The small kernels accumulate in registers over the whole contraction (rhs not transposed) and
// compute four outputs at a time (rhs transposed). These tests pin down that every output
// element is still computed with exactly the arithmetic of the kernels before that change. Not
// transposed: the columns a vector covers are a chain of fused multiply-adds in the order of k
// starting from zero; the columns after the last full vector are a plain product for k = 0 and
// then separate multiplies and adds. Transposed: each vector lane is such a chain over the k it
// covers, the lanes are summed (upper half + lower half, then in pairs), and the k after the
// last full vector are added as separate multiplies and adds. The float32 kernel (not
// transposed) now computes the columns after the last full vector in one masked vector too; the
// same arithmetic holds for them lane by lane. The float32 transposed kernel computes pairs of
// rows and groups of four columns in assembly (avx2TransposedPairsFloat32) and the rest in Go,
// and the float32 kernel a single row 64 columns at a time in assembly (avx2RowFloat32): the
// shapes below (m 1–9, n 1–41 and 63–130, k 1–64) cover all of them, with and without
// full vectors of k and k after them.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"simd/archsimd"
	"testing"
)

func fmaLaneFloat32(a, b, c float32) float32 {
	var out [8]float32
	archsimd.BroadcastFloat32x8(a).MulAdd(archsimd.BroadcastFloat32x8(b), archsimd.BroadcastFloat32x8(c)).StoreArray(&out)
	return out[0]
}

func fmaLaneFloat64(a, b, c float64) float64 {
	var out [4]float64
	archsimd.BroadcastFloat64x4(a).MulAdd(archsimd.BroadcastFloat64x4(b), archsimd.BroadcastFloat64x4(c)).StoreArray(&out)
	return out[0]
}

// referenceSmall computes lhs[b, m, k] · rhs[b, k, n] one element at a time, with the
// arithmetic the AVX2 small kernel uses for the element's column.
func referenceSmall[T float32 | float64](lhs, rhs []T, batch, m, n, k, vecWidth int, fma func(a, b, c T) T) []T {
	out := make([]T, batch*m*n)
	vectorCols := n / vecWidth * vecWidth
	for b := range batch {
		for i := range m {
			for j := range n {
				var s T
				for p := range k {
					l, r := lhs[(b*m+i)*k+p], rhs[(b*k+p)*n+j]
					switch {
					case j < vectorCols:
						s = fma(l, r, s)
					case p == 0:
						s = l * r
					default:
						s += l * r
					}
				}
				out[(b*m+i)*n+j] = s
			}
		}
	}
	return out
}

// referenceSmallTransposed computes lhs[b, m, k] · rhs[b, n, k] one element at a time, with
// the arithmetic the AVX2 small transposed kernel uses.
func referenceSmallTransposed[T float32 | float64](lhs, rhs []T, batch, m, n, k, vecWidth int, fma func(a, b, c T) T) []T {
	out := make([]T, batch*m*n)
	vectorK := k / vecWidth * vecWidth
	lanes := make([]T, vecWidth)
	for b := range batch {
		for i := range m {
			for j := range n {
				clear(lanes)
				for p := range vectorK {
					lanes[p%vecWidth] = fma(lhs[(b*m+i)*k+p], rhs[(b*n+j)*k+p], lanes[p%vecWidth])
				}
				half := vecWidth / 2
				for q := range half {
					lanes[q] = lanes[q+half] + lanes[q]
				}
				s := lanes[0] + lanes[1]
				if half == 4 { // then in pairs: (0 + 1) + (2 + 3)
					s += lanes[2] + lanes[3]
				}
				for p := vectorK; p < k; p++ {
					s += lhs[(b*m+i)*k+p] * rhs[(b*n+j)*k+p]
				}
				out[(b*m+i)*n+j] = s
			}
		}
	}
	return out
}

type smallKernel[T float32 | float64] func(lhs, rhs []T, batchStart, batchCount, m, n, k int, out []T)
type smallReference[T float32 | float64] func(lhs, rhs []T, batch, m, n, k, vecWidth int, fma func(a, b, c T) T) []T

func checkSmallKernel[T float32 | float64](t *testing.T, vecWidth int, fma func(a, b, c T) T,
	kernel smallKernel[T], reference smallReference[T], bits func(T) uint64) {
	rng := rand.New(rand.NewPCG(1, 2))
	// With special values, a quarter of the inputs are signed zeros (a product of -0 is kept
	// only if the first product is not added to a zero), infinities (and so NaNs), values
	// whose products overflow, and denormals.
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 3e38, -3e38, 1e-40}
	value := func(special bool) T {
		if special && rng.IntN(4) == 0 {
			return T(specials[rng.IntN(len(specials))])
		}
		return T(rng.NormFloat64())
	}
	const batch = 3
	// Every n up to 41, then some past 64 (a single row of the float32 kernel goes 64 columns
	// at a time in assembly).
	ns := []int{63, 64, 65, 100, 128, 130}
	for n := 41; n >= 1; n-- {
		ns = append([]int{n}, ns...)
	}
	for _, special := range []bool{false, true} {
		// Every m up to 13: none, one or two blocks of six rows (the float32 kernel takes six
		// rows at a time in assembly where n is a multiple of 16), then four and single rows.
		for m := 1; m <= 13; m++ {
			for _, n := range ns {
				for _, k := range []int{1, 2, 3, 4, 7, 8, 16, 33, 64} {
					lhs := make([]T, batch*m*k)
					rhs := make([]T, batch*k*n)
					for i := range lhs {
						lhs[i] = value(special)
					}
					for i := range rhs {
						rhs[i] = value(special)
					}
					want := reference(lhs, rhs, batch, m, n, k, vecWidth, fma)
					// Batches 1 and 2 only: the kernel must leave batch 0 as it found it.
					got := make([]T, batch*m*n)
					sentinel := T(math.Pi)
					for i := range m * n {
						got[i] = sentinel
					}
					kernel(lhs, rhs, 1, batch-1, m, n, k, got)
					for i := range got {
						w := want[i]
						if i < m*n {
							w = sentinel
						}
						if bits(got[i]) != bits(w) {
							t.Fatalf("special values %v, m=%d n=%d k=%d: element %d (batch %d, row %d, column %d) = %v, want %v bit for bit",
								special, m, n, k, i, i/(m*n), i%(m*n)/n, i%n, got[i], w)
						}
					}
				}
			}
		}
	}
}

func TestAVX2SmallBitIdentical(t *testing.T) {
	if !archsimd.X86.AVX2() {
		t.Skip("AVX2 is not supported on this architecture")
	}
	bits32 := func(x float32) uint64 { return uint64(math.Float32bits(x)) }
	for _, tc := range []struct {
		name string
		test func(t *testing.T)
	}{
		{"float32", func(t *testing.T) {
			checkSmallKernel(t, 8, fmaLaneFloat32, avx2SmallFloat32, referenceSmall, bits32)
		}},
		{"float64", func(t *testing.T) {
			checkSmallKernel(t, 4, fmaLaneFloat64, avx2SmallFloat64, referenceSmall, math.Float64bits)
		}},
		{"float32/transposed", func(t *testing.T) {
			checkSmallKernel(t, 8, fmaLaneFloat32, avx2SmallFloat32Transposed, referenceSmallTransposed, bits32)
		}},
		{"float64/transposed", func(t *testing.T) {
			checkSmallKernel(t, 4, fmaLaneFloat64, avx2SmallFloat64Transposed, referenceSmallTransposed, math.Float64bits)
		}},
	} {
		t.Run(tc.name, tc.test)
	}
}

// BenchmarkAVX2SmallWidths times avx2SmallFloat32 on one thread for output widths that are
// multiples of 16 (padded layers) and widths that are not (a user's network of 50 hidden
// units, the 30 inputs of a gradient), in GFLOP/s.
//
//	GOEXPERIMENT=simd go test -run '^$' -bench AVX2SmallWidths ./internal/gobackend/dot/matmul
func BenchmarkAVX2SmallWidths(b *testing.B) {
	if !archsimd.X86.AVX2() {
		b.Skip("AVX2 is not supported on this architecture")
	}
	for _, size := range [][3]int{{228, 30, 48}, {228, 30, 50}, {228, 30, 60}, {228, 30, 100}, {228, 64, 30}, {11, 30, 50}, {6, 30, 20}} {
		m, k, n := size[0], size[1], size[2]
		b.Run(fmt.Sprintf("%dx%dx%d", m, k, n), func(b *testing.B) {
			lhs, rhs, out := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
			for i := range lhs {
				lhs[i] = float32(i%13) - 6
			}
			for i := range rhs {
				rhs[i] = float32(i%11) - 5
			}
			for b.Loop() {
				avx2SmallFloat32(lhs, rhs, 0, 1, m, n, k, out)
			}
			b.ReportMetric(float64(2*m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

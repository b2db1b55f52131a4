//go:build amd64 && goexperiment.simd

package ops

// float32 Exp four lanes of float64 at a time with AVX2 and FMA. The generic executor computes
// float32(math.Exp(float64(x))) one element at a time; on amd64 math.Exp is the assembly of
// math/exp_amd64.s, whose FMA path (taken where the CPU has AVX and FMA, as it does here) is a
// fixed sequence of IEEE operations: k = round(x·log2 e), r = x − k·ln2 (two fused steps, ln2
// split in two), a degree-8 Taylor polynomial of r/16 that is squared back four times as
// y ← y·(y + 2), then y·2^k. avx2ExpFloat32 runs that sequence, operation for operation, on
// four lanes, so each lane's float64 is the one math.Exp returns and its rounding to float32 is
// the generic executor's: the results are bit-identical. Lanes outside [−700, 700] (where
// math.Exp takes its overflow, denormal or non-finite branches), or NaN, send their block of
// eight to math.Exp.

import "simd/archsimd"

// The constants of math/exp_amd64.s.
const (
	expLog2E = 1.4426950408889634073599246810018920                  // 1/ln 2
	expLn2U  = 0.69314718055966295651160180568695068359375           // upper half of ln 2
	expLn2L  = 0.28235290563031577122588448175013436025525412068e-12 // lower half of ln 2
)

// expTaylor are the polynomial's coefficients, from the highest power down.
var expTaylor = [...]float64{
	2.4801587301587301587e-5, 1.9841269841269841270e-4, 1.3888888888888888889e-3,
	8.3333333333333333333e-3, 4.1666666666666666667e-2, 1.6666666666666666667e-1, 0.5, 1.0,
}

// avx2ExpFloat32 sets output to e^input, as float32(math.Exp(float64(x))) does. The last
// block, shorter than eight, goes through a copy padded with zeros: the models' exponentials
// are mostly of a few values (class log-probabilities, a latent code), where a scalar tail
// would be most of the work.
func avx2ExpFloat32(input, output []float32) {
	n := len(output)
	i := 0
	for ; i+8 <= n; i += 8 {
		avx2ExpFloat32Block((*[8]float32)(input[i:i+8]), (*[8]float32)(output[i:i+8]))
	}
	if i < n {
		var in, out [8]float32
		copy(in[:], input[i:])
		avx2ExpFloat32Block(&in, &out)
		copy(output[i:], out[:n-i])
	}
	archsimd.ClearAVXUpperBits() // the scalar SSE code that follows pays no transition penalty
}

// avx2ExpFloat32Block sets output to e^input for one block of eight.
func avx2ExpFloat32Block(input, output *[8]float32) {
	x := archsimd.LoadFloat32x8Array(input)
	if x.GreaterEqual(archsimd.BroadcastFloat32x8(-700)).And(x.LessEqual(archsimd.BroadcastFloat32x8(700))).ToBits() != 0xff {
		archsimd.ClearAVXUpperBits()
		execExpGeneric(input[:], output[:])
		return
	}
	lo, hi := expFloat64x4(x.GetLo().ConvertToFloat64()), expFloat64x4(x.GetHi().ConvertToFloat64())
	x.SetLo(lo.ConvertToFloat32()).SetHi(hi.ConvertToFloat32()).StoreArray(output)
}

// expFloat64x4 is math/exp_amd64.s's FMA path on four lanes within [−700, 700].
func expFloat64x4(x archsimd.Float64x4) archsimd.Float64x4 {
	k := x.Mul(archsimd.BroadcastFloat64x4(expLog2E)).Round() // CVTSD2SL rounds to even
	r := k.MulAdd(archsimd.BroadcastFloat64x4(-expLn2U), x)   // VFNMADD231SD: x − k·ln2U, fused
	r = k.MulAdd(archsimd.BroadcastFloat64x4(-expLn2L), r)
	r = r.Mul(archsimd.BroadcastFloat64x4(0.0625))
	p := archsimd.BroadcastFloat64x4(expTaylor[0])
	for _, c := range expTaylor[1:] {
		p = p.MulAdd(r, archsimd.BroadcastFloat64x4(c))
	}
	two := archsimd.BroadcastFloat64x4(2)
	y := p.Mul(r)
	y = y.Add(two).Mul(y)
	y = y.Add(two).Mul(y)
	y = y.Add(two).Mul(y)
	y = y.MulAdd(y.Add(two), archsimd.BroadcastFloat64x4(1)) // the last square, with its +1 fused
	// 2^k from its bits: k + 1023 sits in the low bits of k + 1023 + 2^52, and shifted into the
	// exponent field it is 2^k (−1022 ≤ k ≤ 1023 within [−700, 700]).
	scale := k.Add(archsimd.BroadcastFloat64x4(1023 + 1<<52)).AsUint64x4().ShiftAllLeft(52).AsFloat64x4()
	return y.Mul(scale)
}

// expUsesFMA is whether math.Exp takes the FMA path that avx2ExpFloat32 reproduces
// (math/exp_amd64.go: useFMA = cpu.X86.HasAVX && cpu.X86.HasFMA).
var expUsesFMA = archsimd.X86.AVX() && archsimd.X86.FMA()

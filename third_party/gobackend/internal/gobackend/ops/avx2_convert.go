//go:build amd64 && goexperiment.simd

package ops

// ConvertDType from float32 to float64 four elements at a time with AVX (VCVTPS2PD, exact, as
// the generic loop's conversion is): sums kept in float64 over float32 values convert a
// batch's arrays at every step of a search.

import (
	"simd/archsimd"

	"github.com/gomlx/compute/dtypes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

func init() {
	if archsimd.X86.AVX2() {
		ConvertDTypePairMap.Register(dtypes.Float32, dtypes.Float64, gobackend.PriorityArch, ConvertFnType(avx2ConvertFloat32ToFloat64))
	}
}

func avx2ConvertFloat32ToFloat64(operand, output *gobackend.Buffer) {
	in, out := operand.Flat.([]float32), output.Flat.([]float64)
	n := len(in)
	i := 0
	for ; i+4 <= n; i += 4 {
		archsimd.LoadFloat32x4(in[i : i+4]).ConvertToFloat64().Store(out[i : i+4])
	}
	archsimd.ClearAVXUpperBits() // the scalar SSE code that follows pays no transition penalty
	for ; i < n; i++ {
		out[i] = float64(in[i])
	}
}

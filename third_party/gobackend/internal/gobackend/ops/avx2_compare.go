//go:build amd64 && goexperiment.simd

package ops

// float32 GreaterOrEqual eight lanes at a time with AVX2. A network's ReLU masks (x ≥ 0, kept
// for the backward pass) are the one comparison over whole activations, and the scalar loop's
// compare-and-set per element was a twentieth of a batch's search. VCMPPS with the ordered
// greater-or-equal predicate is false for a NaN on either side and true for −0 ≥ +0, as Go's
// >= is, so the bools are the same. Broadcasting of non-scalar operands, other types and
// dynamic shapes go to the generic executor.

import (
	"simd/archsimd"
	"unsafe"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

func init() {
	if archsimd.X86.AVX2() {
		gobackend.SetPlannedNodeExecutor(compute.OpTypeGreaterOrEqual, gobackend.PriorityArch, avx2Float32GreaterOrEqualExecutor)
	}
}

// boolBytes[m] is the eight Go bools (bytes 0 or 1) of the bits of m, lowest bit first.
var boolBytes = func() (t [256]uint64) {
	for m := range t {
		for b := range 8 {
			t[m] |= uint64(m>>b&1) << (8 * b)
		}
	}
	return t
}()

// avx2Float32GreaterOrEqualExecutor runs float32 operands of the same shape, or with a scalar
// operand, on AVX2 and everything else on execGreaterOrEqual.
func avx2Float32GreaterOrEqualExecutor(backend *gobackend.Backend, node *gobackend.Node, inputs []*gobackend.Buffer, inputsOwned []bool, planned *gobackend.Buffer) (*gobackend.Buffer, error) {
	lhs, rhs := inputs[0], inputs[1]
	lhsN, rhsN := lhs.RawShape.Size(), rhs.RawShape.Size()
	if _, static := node.StaticSize(); lhs.RawShape.DType != dtypes.Float32 || !static ||
		!(lhsN == 1 || rhsN == 1 || lhs.RawShape.Equal(rhs.RawShape)) {
		return execGreaterOrEqual(backend, node, inputs, inputsOwned)
	}
	output, err := backend.PlannedOutput(node.Shape, planned)
	if err != nil {
		return nil, err
	}
	avx2Float32GreaterOrEqual(lhs.Flat.([]float32), rhs.Flat.([]float32), output.Flat.([]bool))
	return output, nil
}

// avx2Float32GreaterOrEqual sets output[i] = lhs[i] >= rhs[i], where lhs or rhs may have length
// 1 (broadcast), in the generic loop's order of cases (a scalar rhs first).
func avx2Float32GreaterOrEqual(lhs, rhs []float32, output []bool) {
	n := len(output)
	i := 0
	switch {
	case len(rhs) == 1:
		y := archsimd.BroadcastFloat32x8(rhs[0])
		for ; i+8 <= n; i += 8 {
			m := archsimd.LoadFloat32x8(lhs[i : i+8]).GreaterEqual(y).ToBits()
			*(*uint64)(unsafe.Pointer(&output[i])) = boolBytes[m]
		}
	case len(lhs) == 1:
		x := archsimd.BroadcastFloat32x8(lhs[0])
		for ; i+8 <= n; i += 8 {
			m := x.GreaterEqual(archsimd.LoadFloat32x8(rhs[i : i+8])).ToBits()
			*(*uint64)(unsafe.Pointer(&output[i])) = boolBytes[m]
		}
	default:
		for ; i+8 <= n; i += 8 {
			m := archsimd.LoadFloat32x8(lhs[i : i+8]).GreaterEqual(archsimd.LoadFloat32x8(rhs[i : i+8])).ToBits()
			*(*uint64)(unsafe.Pointer(&output[i])) = boolBytes[m]
		}
	}
	archsimd.ClearAVXUpperBits() // the scalar SSE code that follows pays no transition penalty
	for ; i < n; i++ {
		output[i] = lhs[min(i, len(lhs)-1)] >= rhs[min(i, len(rhs)-1)]
	}
}

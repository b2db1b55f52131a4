//go:build amd64 && goexperiment.simd

package ops

// float32 elementwise operations eight lanes at a time with AVX2, which the compiler does not
// vectorise: Add, Sub, Mul and Div of same-shaped operands or with a scalar operand (training a
// small network spent a fifth of its time in these loops, the optimiser's updates of every
// weight), Sign (autodiff's gradient of each ReLU) and Sqrt (the optimiser's); and Max and Min
// (a ReLU is Max(x, 0)), with the instruction sequence Go's compiler emits for the built-in max
// and min (float32x8Op). Each lane is the same IEEE operation on the same operands as the
// scalar loop it replaces, so the results are bit-identical. Add, Sub, Mul and Div with
// broadcasting of non-scalar operands take a run along the last axis at a time
// (avx2Float32BinaryBroadcast); Max and Min with such broadcasting, other types and dynamic
// shapes go to the generic executors.

import (
	"simd/archsimd"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

func init() {
	if !archsimd.X86.AVX2() {
		return
	}
	for _, op := range []struct {
		opType  compute.OpType
		generic gobackend.NodeExecutor
	}{
		{compute.OpTypeAdd, execAdd},
		{compute.OpTypeSub, execSub},
		{compute.OpTypeMul, execMul},
		{compute.OpTypeDiv, execDiv},
		{compute.OpTypeMax, execMax},
		{compute.OpTypeMin, execMin},
	} {
		gobackend.SetFusibleNodeExecutor(op.opType, gobackend.PriorityArch, avx2Float32BinaryExecutor(op.opType, op.generic), avx2Float32Elementwise)
	}
	unaryKernel := func(opType compute.OpType, out, a, _ []float32) { avx2Float32Unary(opType, a, out) }
	gobackend.SetFusibleNodeExecutor(compute.OpTypeSign, gobackend.PriorityArch, avx2Float32UnaryExecutor(compute.OpTypeSign, execSign), unaryKernel)
	gobackend.SetFusibleNodeExecutor(compute.OpTypeSqrt, gobackend.PriorityArch, avx2Float32UnaryExecutor(compute.OpTypeSqrt, execSqrt), unaryKernel)
	gobackend.SetFusibleNodeExecutor(compute.OpTypeAbs, gobackend.PriorityArch, avx2Float32UnaryExecutor(compute.OpTypeAbs, execAbs), unaryKernel)
	if expUsesFMA {
		gobackend.SetFusibleNodeExecutor(compute.OpTypeExp, gobackend.PriorityArch, avx2Float32UnaryExecutor(compute.OpTypeExp, execExp), unaryKernel)
	}
}

// avx2Float32UnaryExecutor runs float32 operands on AVX2 and everything else on generic.
func avx2Float32UnaryExecutor(opType compute.OpType, generic gobackend.PlannedNodeExecutor) gobackend.PlannedNodeExecutor {
	return func(backend *gobackend.Backend, node *gobackend.Node, inputs []*gobackend.Buffer, inputsOwned []bool, planned *gobackend.Buffer) (*gobackend.Buffer, error) {
		if inputs[0].RawShape.DType != dtypes.Float32 {
			return generic(backend, node, inputs, inputsOwned, planned)
		}
		input, output, err := unaryOperandAndOutput(backend, inputs, inputsOwned, planned)
		if err != nil {
			return nil, err
		}
		avx2Float32Unary(opType, input.Flat.([]float32), output.Flat.([]float32))
		return output, nil
	}
}

// avx2Float32Unary sets output to Sign, Sqrt, Abs or Exp (avx2ExpFloat32) of input. Sign is (x > 0) − (x < 0) from two
// ordered comparisons, so ±0 and NaN give +0, as execSignGeneric does; VSQRTPS rounds the
// square root correctly, as the generic float64 square root rounded to float32 does; Abs
// flips the sign bit where x < 0, so −0 and NaN keep theirs, as execAbsGeneric's branch does
// (whose mispredictions, with signs at random, cost more than the rest of the loop).
func avx2Float32Unary(opType compute.OpType, input, output []float32) {
	if opType == compute.OpTypeExp {
		avx2ExpFloat32(input, output)
		return
	}
	zero, one := archsimd.BroadcastFloat32x8(0), archsimd.BroadcastFloat32x8(1)
	sign := archsimd.BroadcastUint32x8(1 << 31)
	n := len(output)
	i := 0
	for ; i+8 <= n; i += 8 {
		x := archsimd.LoadFloat32x8(input[i : i+8])
		switch opType {
		case compute.OpTypeSqrt:
			x.Sqrt().Store(output[i : i+8])
		case compute.OpTypeAbs:
			x.AsUint32x8().Xor(sign.Masked(x.Less(zero))).AsFloat32x8().Store(output[i : i+8])
		default:
			one.Masked(x.Greater(zero)).Sub(one.Masked(x.Less(zero))).Store(output[i : i+8])
		}
	}
	archsimd.ClearAVXUpperBits() // the scalar SSE code that follows pays no transition penalty
	switch opType {
	case compute.OpTypeSqrt:
		execSqrtGeneric(input[i:], output[i:])
	case compute.OpTypeAbs:
		execAbsGeneric(input[i:], output[i:])
	default:
		execSignGeneric(input[i:], output[i:])
	}
}

// avx2Float32BinaryExecutor runs float32 operands on AVX2 (Max and Min only without
// broadcasting) and everything else on generic.
func avx2Float32BinaryExecutor(opType compute.OpType, generic gobackend.NodeExecutor) gobackend.PlannedNodeExecutor {
	isMinMax := opType == compute.OpTypeMax || opType == compute.OpTypeMin
	return func(backend *gobackend.Backend, node *gobackend.Node, inputs []*gobackend.Buffer, inputsOwned []bool, planned *gobackend.Buffer) (*gobackend.Buffer, error) {
		lhsShape, rhsShape := inputs[0].RawShape, inputs[1].RawShape
		lhsFlat, lhsOk := inputs[0].Flat.([]float32)
		rhsFlat, rhsOk := inputs[1].Flat.([]float32)
		size, static := node.StaticSize()
		if !static {
			return generic(backend, node, inputs, inputsOwned)
		}
		if !lhsOk || !rhsOk {
			if lhs, rhs, ok := float64Operands(inputs, size); ok && !isMinMax {
				return avx2Float64BinaryExec(opType, backend, node, inputs, inputsOwned, planned, lhs, rhs, size)
			}
			return generic(backend, node, inputs, inputsOwned)
		}
		// The operands' lengths say it all, without comparing shapes (whose dimensions are a
		// memory read apart, for every operation): an operand of the output's length has the
		// output's dimensions, since it broadcasts to them.
		lhsIsScalarOr1, rhsIsScalarOr1 := len(lhsFlat) == 1, len(rhsFlat) == 1
		broadcast := !(lhsIsScalarOr1 || rhsIsScalarOr1 || (len(lhsFlat) == size && len(rhsFlat) == size))
		if broadcast && isMinMax {
			return generic(backend, node, inputs, inputsOwned)
		}
		// The output reuses an operand the executor owns where it has the output's length, as
		// binaryOperandsAndOutputForExecution does where it has the output's shape.
		var output *gobackend.Buffer
		switch {
		case inputsOwned[1] && len(rhsFlat) == size:
			output, inputs[1] = inputs[1], nil
			output.RawShape = node.Shape
		case inputsOwned[0] && len(lhsFlat) == size:
			output, inputs[0] = inputs[0], nil
			output.RawShape = node.Shape
		default:
			output, _ = backend.PlannedOutput(node.Shape, planned)
		}
		outFlat := output.Flat.([]float32)
		if broadcast {
			avx2Float32BinaryBroadcast(opType, lhsFlat, rhsFlat, outFlat, node.BroadcastIterator(lhsShape, rhsShape))
		} else {
			avx2Float32Elementwise(opType, outFlat, lhsFlat, rhsFlat)
		}
		return output, nil
	}
}

// avx2Float32Elementwise sets output to lhs ⊙ rhs for Add, Sub, Mul, Div, Max or Min, where lhs
// and rhs have output's length or length 1: the executor's computation without broadcasting
// along axes, and its FusedKernel.
func avx2Float32Elementwise(opType compute.OpType, output, lhs, rhs []float32) {
	if len(lhs) == 1 && len(rhs) != 1 && opType != compute.OpTypeSub && opType != compute.OpTypeDiv {
		lhs, rhs = rhs, lhs // as the generic executors of commutative ops do
	}
	if opType == compute.OpTypeMax || opType == compute.OpTypeMin {
		avx2Float32MinMax(opType == compute.OpTypeMax, lhs, rhs, output)
	} else {
		avx2Float32Binary(opType, lhs, rhs, output)
	}
}

// avx2Float32Binary sets output to lhs ⊙ rhs, where lhs and rhs have output's length or
// length 1 (broadcast). It follows the generic loops' cases (a scalar rhs first, then a
// scalar lhs), so each element is computed from the same operands in the same order.
func avx2Float32Binary(opType compute.OpType, lhs, rhs, output []float32) {
	n := len(output)
	i := 0
	switch {
	case len(rhs) == 1:
		y := archsimd.BroadcastFloat32x8(rhs[0])
		for ; i+8 <= n; i += 8 {
			float32x8Op(opType, archsimd.LoadFloat32x8(lhs[i:i+8]), y).Store(output[i : i+8])
		}
	case len(lhs) == 1:
		x := archsimd.BroadcastFloat32x8(lhs[0])
		for ; i+8 <= n; i += 8 {
			float32x8Op(opType, x, archsimd.LoadFloat32x8(rhs[i:i+8])).Store(output[i : i+8])
		}
	default:
		for ; i+8 <= n; i += 8 {
			float32x8Op(opType, archsimd.LoadFloat32x8(lhs[i:i+8]), archsimd.LoadFloat32x8(rhs[i:i+8])).Store(output[i : i+8])
		}
	}
	archsimd.ClearAVXUpperBits() // the scalar SSE code that follows pays no transition penalty
	for ; i < n; i++ {
		output[i] = float32Op(opType, lhs[min(i, len(lhs)-1)], rhs[min(i, len(rhs)-1)])
	}
}

// avx2Float32BinaryBroadcast sets output to lhs ⊙ rhs where an operand is broadcast along
// some axes: a run along the output's last axis at a time, each with avx2Float32Binary (an
// operand broadcast along the last axis is one element for the run). Every element is the
// same operation on the same operands, in the same order, as the generic executors'
// broadcasting loop.
func avx2Float32BinaryBroadcast(opType compute.OpType, lhs, rhs, output []float32, zipIter *gobackend.ZipIterator) {
	rank, runLen, lhsStep, rhsStep := zipIter.LastAxis()
	lhsLen, rhsLen := 1+(runLen-1)*lhsStep, 1+(runLen-1)*rhsStep
	var counters [8]int
	perAxesIdx := counters[:min(rank, len(counters))]
	if rank > len(counters) {
		perAxesIdx = make([]int, rank)
	}
	lhsStart, rhsStart := 0, 0
	for dstStart := 0; dstStart < len(output); dstStart += runLen {
		avx2Float32Binary(opType, lhs[lhsStart:lhsStart+lhsLen], rhs[rhsStart:rhsStart+rhsLen], output[dstStart:dstStart+runLen])
		lhsStart, rhsStart = zipIter.NextRun(perAxesIdx, lhsStart, rhsStart)
	}
}

func float32x8Op(opType compute.OpType, x, y archsimd.Float32x8) archsimd.Float32x8 {
	switch opType {
	case compute.OpTypeAdd:
		return x.Add(y)
	case compute.OpTypeSub:
		return x.Sub(y)
	case compute.OpTypeMul:
		return x.Mul(y)
	default:
		return x.Div(y)
	}
}

func float32Op(opType compute.OpType, x, y float32) float32 {
	switch opType {
	case compute.OpTypeAdd:
		return x + y
	case compute.OpTypeSub:
		return x - y
	case compute.OpTypeMul:
		return x * y
	default:
		return x / y
	}
}

// avx2Float32MinMax sets output to max(lhs, rhs) (or min) lane by lane, where lhs has
// output's length and rhs output's or 1 (the executor puts a scalar operand of these
// commutative ops on the right, as the generic ones do). Its own loop, so that float32x8Op
// stays small enough to be inlined into the arithmetic ops' loops.
func avx2Float32MinMax(isMax bool, lhs, rhs, output []float32) {
	n := len(output)
	i := 0
	y := archsimd.BroadcastFloat32x8(rhs[0])
	for ; i+8 <= n; i += 8 {
		if len(rhs) > 1 {
			y = archsimd.LoadFloat32x8(rhs[i : i+8])
		}
		x := archsimd.LoadFloat32x8(lhs[i : i+8])
		if isMax {
			float32x8Max(x, y).Store(output[i : i+8])
		} else {
			float32x8Min(x, y).Store(output[i : i+8])
		}
	}
	archsimd.ClearAVXUpperBits() // the scalar SSE code that follows pays no transition penalty
	for ; i < n; i++ {
		if x, y := lhs[i], rhs[min(i, len(rhs)-1)]; isMax {
			output[i] = max(x, y)
		} else {
			output[i] = min(x, y)
		}
	}
}

// float32x8Min is Go's built-in min of float32, lane by lane: on amd64 the compiler emits
// m = MINSS(x, y), then MINSS(m, x) | m (its rules for Min32F), which gives a NaN if either
// operand is one and -0 for min(-0, +0). MINSS(a, b) = a < b ? a : b, else b (a NaN, or
// both zeros), is taken here as a comparison and a blend: VMINPS would do, but Go's compiler
// takes it as commutative and may swap its operands, which changes what a NaN or a signed
// zero gives.
func float32x8Min(x, y archsimd.Float32x8) archsimd.Float32x8 {
	minss := func(a, b archsimd.Float32x8) archsimd.Float32x8 { return a.Merge(b, a.Less(b)) }
	m := minss(x, y)
	return minss(m, x).AsUint32x8().Or(m.AsUint32x8()).AsFloat32x8()
}

// float32x8Max is Go's built-in max of float32, lane by lane: the compiler's min of the
// negated operands, negated.
func float32x8Max(x, y archsimd.Float32x8) archsimd.Float32x8 {
	sign := archsimd.BroadcastUint32x8(1 << 31)
	neg := func(v archsimd.Float32x8) archsimd.Float32x8 { return v.AsUint32x8().Xor(sign).AsFloat32x8() }
	return neg(float32x8Min(neg(x), neg(y)))
}

// float64Operands are a binary operation's float64 operands when neither is broadcast along
// axes (each has the output's length or length 1).
func float64Operands(inputs []*gobackend.Buffer, size int) (lhs, rhs []float64, ok bool) {
	lhs, lhsOk := inputs[0].Flat.([]float64)
	rhs, rhsOk := inputs[1].Flat.([]float64)
	if !lhsOk || !rhsOk || !(len(lhs) == size || len(lhs) == 1) || !(len(rhs) == size || len(rhs) == 1) {
		return nil, nil, false
	}
	return lhs, rhs, true
}

// avx2Float64BinaryExec is Add, Sub, Mul or Div of float64 operands that are not broadcast
// along axes, four lanes at a time: accumulations kept in float64 (an attribution integrated
// over a path's thousand steps) run these on arrays of a batch's rows every step. Each lane is
// the same IEEE operation on the same operands as the generic loop's, so the results are
// bit-identical.
func avx2Float64BinaryExec(opType compute.OpType, backend *gobackend.Backend, node *gobackend.Node, inputs []*gobackend.Buffer, inputsOwned []bool, planned *gobackend.Buffer, lhs, rhs []float64, size int) (*gobackend.Buffer, error) {
	var output *gobackend.Buffer
	switch {
	case inputsOwned[1] && len(rhs) == size:
		output, inputs[1] = inputs[1], nil
		output.RawShape = node.Shape
	case inputsOwned[0] && len(lhs) == size:
		output, inputs[0] = inputs[0], nil
		output.RawShape = node.Shape
	default:
		output, _ = backend.PlannedOutput(node.Shape, planned)
	}
	if len(lhs) == 1 && len(rhs) != 1 && opType != compute.OpTypeSub && opType != compute.OpTypeDiv {
		lhs, rhs = rhs, lhs // as the generic executors of commutative ops do
	}
	avx2Float64Binary(opType, lhs, rhs, output.Flat.([]float64))
	return output, nil
}

// avx2Float64Binary is avx2Float32Binary for float64.
func avx2Float64Binary(opType compute.OpType, lhs, rhs, output []float64) {
	n := len(output)
	i := 0
	switch {
	case len(rhs) == 1:
		y := archsimd.BroadcastFloat64x4(rhs[0])
		for ; i+4 <= n; i += 4 {
			float64x4Op(opType, archsimd.LoadFloat64x4(lhs[i:i+4]), y).Store(output[i : i+4])
		}
	case len(lhs) == 1:
		x := archsimd.BroadcastFloat64x4(lhs[0])
		for ; i+4 <= n; i += 4 {
			float64x4Op(opType, x, archsimd.LoadFloat64x4(rhs[i:i+4])).Store(output[i : i+4])
		}
	default:
		for ; i+4 <= n; i += 4 {
			float64x4Op(opType, archsimd.LoadFloat64x4(lhs[i:i+4]), archsimd.LoadFloat64x4(rhs[i:i+4])).Store(output[i : i+4])
		}
	}
	archsimd.ClearAVXUpperBits() // the scalar SSE code that follows pays no transition penalty
	for ; i < n; i++ {
		x, y := lhs[min(i, len(lhs)-1)], rhs[min(i, len(rhs)-1)]
		switch opType {
		case compute.OpTypeAdd:
			output[i] = x + y
		case compute.OpTypeSub:
			output[i] = x - y
		case compute.OpTypeMul:
			output[i] = x * y
		default:
			output[i] = x / y
		}
	}
}

func float64x4Op(opType compute.OpType, x, y archsimd.Float64x4) archsimd.Float64x4 {
	switch opType {
	case compute.OpTypeAdd:
		return x.Add(y)
	case compute.OpTypeSub:
		return x.Sub(y)
	case compute.OpTypeMul:
		return x.Mul(y)
	default:
		return x.Div(y)
	}
}

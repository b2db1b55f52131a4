//go:build amd64 && goexperiment.simd

package ops

// The AVX2 executors of float32 Add, Sub, Mul, Div, Max, Min, Sign, Sqrt, Abs and Exp (and of float64
// Add, Sub, Mul and Div, and the conversion from float32 to float64) must write bit for bit
// what the generic executors write, with and without broadcasting.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"simd/archsimd"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

func TestAVX2ElementwiseBitIdentical(t *testing.T) {
	if !archsimd.X86.AVX2() {
		t.Skip("no AVX2 on this CPU")
	}
	compiled, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	backend := compiled.(*gobackend.Backend)
	rng := rand.New(rand.NewPCG(5, 6))
	values := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * 3)
		}
		// Values whose bits a float comparison would not tell apart, one NaN per pair.
		specials := []float32{float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), 1e-40, math.Float32frombits(0x7fc00005)}
		for i := range min(n, len(specials)) {
			v[(i*7+int(rng.IntN(3)))%n] = specials[i]
		}
		return v
	}
	// execute runs executor on copies of the operands (none owned) and returns its output.
	execute := func(executor gobackend.NodeExecutor, node *gobackend.Node, operands ...*gobackend.Buffer) []float32 {
		inputs := make([]*gobackend.Buffer, len(operands))
		for i, o := range operands {
			inputs[i] = &gobackend.Buffer{Flat: append([]float32(nil), o.Flat.([]float32)...), RawShape: o.RawShape}
		}
		output, err := executor(backend, node, inputs, make([]bool, len(operands)))
		if err != nil {
			t.Fatal(err)
		}
		return output.Flat.([]float32)
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
		avx2 := avx2Float32BinaryExecutor(op.opType, op.generic)
		for _, n := range []int{1, 2, 7, 8, 9, 16, 31, 64, 1000} {
			for _, form := range []struct {
				name       string
				lhsN, rhsN int
			}{{"same shape", n, n}, {"scalar rhs", n, 1}, {"scalar lhs", 1, n}} {
				lhs, rhs := values(form.lhsN), values(form.rhsN)
				if n > 1 && form.rhsN == n { // no NaN against NaN: x86 keeps either payload
					rhs[(n-1)/2] = 2
				}
				shapeOf := func(size int) shapes.Shape {
					if size == 1 && n > 1 {
						return shapes.Make(dtypes.Float32)
					}
					return shapes.Make(dtypes.Float32, size)
				}
				node := &gobackend.Node{OpType: op.opType, Shape: shapes.Make(dtypes.Float32, n)}
				operands := []*gobackend.Buffer{{Flat: lhs, RawShape: shapeOf(form.lhsN)}, {Flat: rhs, RawShape: shapeOf(form.rhsN)}}
				want, got := execute(op.generic, node, operands...), execute(avx2.Executor(), node, operands...)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s, %s, n=%d: element %d: got %v (%#x), want %v (%#x)", op.opType, form.name, n, i,
							got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
					}
				}
			}
		}
	}
	// float64 Add, Sub, Mul and Div of operands of the output's length or scalars.
	values64 := func(n int) []float64 {
		v := make([]float64, n)
		for i, x := range values(n) {
			v[i] = float64(x) * (1 + rng.Float64()*1e-9) // bits beyond float32's
		}
		return v
	}
	for _, op := range []struct {
		opType  compute.OpType
		generic gobackend.NodeExecutor
	}{
		{compute.OpTypeAdd, execAdd},
		{compute.OpTypeSub, execSub},
		{compute.OpTypeMul, execMul},
		{compute.OpTypeDiv, execDiv},
	} {
		avx2 := avx2Float32BinaryExecutor(op.opType, op.generic).Executor()
		for _, n := range []int{1, 3, 4, 5, 31, 1000} {
			for _, form := range []struct {
				name       string
				lhsN, rhsN int
			}{{"same shape", n, n}, {"scalar rhs", n, 1}, {"scalar lhs", 1, n}} {
				lhs, rhs := values64(form.lhsN), values64(form.rhsN)
				for i := range rhs {
					if rhs[i] != rhs[i] { // no NaN against NaN: x86 keeps either payload
						rhs[i] = 2
					}
				}
				shapeOf := func(size int) shapes.Shape {
					if size == 1 && n > 1 {
						return shapes.Make(dtypes.Float64)
					}
					return shapes.Make(dtypes.Float64, size)
				}
				node := &gobackend.Node{OpType: op.opType, Shape: shapes.Make(dtypes.Float64, n)}
				run := func(executor gobackend.NodeExecutor) []float64 {
					inputs := []*gobackend.Buffer{
						{Flat: append([]float64(nil), lhs...), RawShape: shapeOf(form.lhsN)},
						{Flat: append([]float64(nil), rhs...), RawShape: shapeOf(form.rhsN)}}
					output, err := executor(backend, node, inputs, make([]bool, 2))
					if err != nil {
						t.Fatal(err)
					}
					return output.Flat.([]float64)
				}
				want, got := run(op.generic), run(avx2)
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("float64 %s, %s, n=%d: element %d: got %v, want %v", op.opType, form.name, n, i, got[i], want[i])
					}
				}
			}
		}
	}
	// The conversion from float32 to float64.
	for _, n := range []int{1, 4, 7, 1000} {
		in := values(n)
		want, got := make([]float64, n), make([]float64, n)
		execConvertDTypeGeneric[float32, float64](&gobackend.Buffer{Flat: in}, &gobackend.Buffer{Flat: want})
		avx2ConvertFloat32ToFloat64(&gobackend.Buffer{Flat: in}, &gobackend.Buffer{Flat: got})
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("float32 to float64, n=%d: element %d (%v): got %v, want %v", n, i, in[i], got[i], want[i])
			}
		}
	}
	// Broadcasting of non-scalar operands (Add, Sub, Mul, Div: a run along the last axis at a
	// time): runs of 1 to 30, either operand or both broadcast, along the last axis or before
	// it; a NaN in one operand at a time (x86 keeps either payload of a NaN against a NaN).
	for _, op := range []struct {
		opType  compute.OpType
		generic gobackend.NodeExecutor
	}{
		{compute.OpTypeAdd, execAdd},
		{compute.OpTypeSub, execSub},
		{compute.OpTypeMul, execMul},
		{compute.OpTypeDiv, execDiv},
	} {
		avx2 := avx2Float32BinaryExecutor(op.opType, op.generic)
		for _, tc := range []struct{ lhs, rhs, out []int }{
			{[]int{3, 1}, []int{3, 4}, []int{3, 4}},
			{[]int{10, 30}, []int{10, 1}, []int{10, 30}},
			{[]int{1, 30}, []int{10, 30}, []int{10, 30}},
			{[]int{9, 1, 1}, []int{1, 1, 30}, []int{9, 1, 30}},
			{[]int{2, 1, 17}, []int{2, 5, 1}, []int{2, 5, 17}},
			{[]int{4, 1}, []int{1, 3}, []int{4, 3}},
			{[]int{10, 2}, []int{10, 1}, []int{10, 2}},
			{[]int{5, 1, 9}, []int{5, 8, 9}, []int{5, 8, 9}},
			{[]int{3, 4, 1}, []int{3, 1, 1}, []int{3, 4, 1}},
			{[]int{2, 3, 8}, []int{1, 3, 8}, []int{2, 3, 8}},
		} {
			for _, nanIn := range []string{"lhs", "rhs"} {
				lhsShape, rhsShape := shapes.Make(dtypes.Float32, tc.lhs...), shapes.Make(dtypes.Float32, tc.rhs...)
				lhs, rhs := values(lhsShape.Size()), values(rhsShape.Size())
				noNaN := rhs
				if nanIn == "rhs" {
					noNaN = lhs
				}
				for i, v := range noNaN {
					if v != v {
						noNaN[i] = 2
					}
				}
				node := &gobackend.Node{OpType: op.opType, Shape: shapes.Make(dtypes.Float32, tc.out...)}
				operands := []*gobackend.Buffer{{Flat: lhs, RawShape: lhsShape}, {Flat: rhs, RawShape: rhsShape}}
				want, got := execute(op.generic, node, operands...), execute(avx2.Executor(), node, operands...)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s, %v ⊙ %v, NaN in %s: element %d: got %v (%#x), want %v (%#x)", op.opType, tc.lhs, tc.rhs, nanIn, i,
							got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
					}
				}
			}
		}
	}
	// Max and Min of every pair of values that tell their NaN and signed-zero rules apart (the
	// first operand's and the second's NaN differ in sign and payload).
	pairValues := []float32{float32(math.Copysign(0, -1)), 0, 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), 1e-40,
		math.Float32frombits(0x7fc00005), math.Float32frombits(0xffc00009)}
	var pairLHS, pairRHS []float32
	for _, x := range pairValues {
		for _, y := range pairValues {
			pairLHS, pairRHS = append(pairLHS, x), append(pairRHS, y)
		}
	}
	for _, op := range []struct {
		opType  compute.OpType
		generic gobackend.NodeExecutor
	}{{compute.OpTypeMax, execMax}, {compute.OpTypeMin, execMin}} {
		node := &gobackend.Node{OpType: op.opType, Shape: shapes.Make(dtypes.Float32, len(pairLHS))}
		operands := []*gobackend.Buffer{{Flat: pairLHS, RawShape: node.Shape}, {Flat: pairRHS, RawShape: node.Shape}}
		want, got := execute(op.generic, node, operands...), execute(avx2Float32BinaryExecutor(op.opType, op.generic).Executor(), node, operands...)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s(%#x, %#x): got %#x, want %#x", op.opType, math.Float32bits(pairLHS[i]), math.Float32bits(pairRHS[i]),
					math.Float32bits(got[i]), math.Float32bits(want[i]))
			}
		}
	}
	for _, op := range []struct {
		opType  compute.OpType
		generic gobackend.PlannedNodeExecutor
	}{
		{compute.OpTypeSign, execSign},
		{compute.OpTypeSqrt, execSqrt},
		{compute.OpTypeAbs, execAbs},
		{compute.OpTypeExp, execExp},
	} {
		avx2 := avx2Float32UnaryExecutor(op.opType, op.generic)
		for _, n := range []int{1, 7, 8, 9, 31, 1000} {
			input := values(n)
			input[n/2] = -input[n/2] - 1 // a negative (Sqrt gives NaN)
			input[0] = float32(math.Copysign(0, -1))
			if op.opType == compute.OpTypeAbs && n > 2 {
				input[2] = math.Float32frombits(0xffc00003) // a NaN with its sign bit set
			}
			node := &gobackend.Node{OpType: op.opType, Shape: shapes.Make(dtypes.Float32, n)}
			operand := &gobackend.Buffer{Flat: input, RawShape: node.Shape}
			want, got := execute(op.generic.Executor(), node, operand), execute(avx2.Executor(), node, operand)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s, n=%d: element %d (%v): got %v (%#x), want %v (%#x)", op.opType, n, i, input[i],
						got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
				}
			}
		}
	}
	// Max of operands that need broadcasting, and other types, reach the generic executors.
	for _, tc := range []struct{ lhs, rhs, out shapes.Shape }{
		{shapes.Make(dtypes.Float32, 3, 1), shapes.Make(dtypes.Float32, 3, 4), shapes.Make(dtypes.Float32, 3, 4)},
		{shapes.Make(dtypes.Float64, 5), shapes.Make(dtypes.Float64, 5), shapes.Make(dtypes.Float64, 5)},
	} {
		t.Run(fmt.Sprint(tc.lhs, tc.rhs), func(t *testing.T) {
			buffer := func(s shapes.Shape) *gobackend.Buffer {
				b, err := backend.GetBuffer(s)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			node := &gobackend.Node{OpType: compute.OpTypeMax, Shape: tc.out}
			inputs := []*gobackend.Buffer{buffer(tc.lhs), buffer(tc.rhs)}
			output, err := avx2Float32BinaryExecutor(compute.OpTypeMax, execMax)(backend, node, inputs, []bool{false, false}, nil)
			if err != nil || !output.RawShape.Equal(tc.out) {
				t.Fatalf("got %v, %v; want a %s", output, err, tc.out)
			}
		})
	}
}

// TestAVX2ExpFloat32BitIdentical compares avx2ExpFloat32 with the generic loop over every
// 4093rd float32 bit pattern (about a million values, all signs and exponents: overflow,
// underflow to subnormals and zero, NaN, ±Inf) and the dense range where the models' values
// lie; a lane outside the vector range sits in every position of a block of eight.
func TestAVX2ExpFloat32BitIdentical(t *testing.T) {
	if !expUsesFMA {
		t.Skip("no AVX and FMA on this CPU: Exp runs the generic loop")
	}
	var input []float32
	for bits := uint64(0); bits < 1<<32; bits += 4093 {
		input = append(input, math.Float32frombits(uint32(bits)))
	}
	for x := float32(-110); x <= 110; x += 1.0 / 1024 {
		input = append(input, x, math.Nextafter32(x, 1))
	}
	for lane := range 8 {
		block := []float32{0.5, -1, 2, -3, 4, -5, 6, -7}
		block[lane] = 701
		input = append(input, block...)
	}
	input = append(input, -700, 700, -700.0001, 700.0001, 1e-45, -1e-45)
	want, got := make([]float32, len(input)), make([]float32, len(input))
	execExpGeneric(input, want)
	avx2ExpFloat32(input, got)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("Exp(%v) (%#x): got %v (%#x), want %v (%#x)", input[i], math.Float32bits(input[i]),
				got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

//go:build amd64 && goexperiment.simd

package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"simd/archsimd"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

// The AVX2 GreaterOrEqual must write the bools the generic executor writes, NaN, ±0 and ±Inf
// included, with a scalar on either side, and leave broadcasting to the generic executor.
func TestAVX2GreaterOrEqualSameBools(t *testing.T) {
	if !archsimd.X86.AVX2() {
		t.Skip("no AVX2 on this CPU")
	}
	compiled, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	backend := compiled.(*gobackend.Backend)
	rng := rand.New(rand.NewPCG(7, 8))
	specials := []float32{float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-40, -1e-40}
	values := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			if rng.IntN(3) == 0 {
				v[i] = specials[rng.IntN(len(specials))]
			} else {
				v[i] = float32(rng.IntN(5) - 2) // equal values are common
			}
		}
		return v
	}
	execute := func(executor gobackend.NodeExecutor, node *gobackend.Node, operands ...*gobackend.Buffer) []bool {
		output, err := executor(backend, node, operands, make([]bool, len(operands)))
		if err != nil {
			t.Fatal(err)
		}
		return output.Flat.([]bool)
	}
	for _, tc := range []struct {
		name     string
		lhs, rhs []int
		out      []int
	}{
		{"same shape 1", []int{1}, []int{1}, []int{1}},
		{"same shape 7", []int{7}, []int{7}, []int{7}},
		{"same shape 8", []int{8}, []int{8}, []int{8}},
		{"same shape 3x60", []int{3, 60}, []int{3, 60}, []int{3, 60}},
		{"same shape 1001", []int{1001}, []int{1001}, []int{1001}},
		{"scalar rhs 9", []int{9}, nil, []int{9}},
		{"scalar rhs 4x60", []int{4, 60}, nil, []int{4, 60}},
		{"scalar lhs 17", nil, []int{17}, []int{17}},
		{"broadcast rows", []int{5, 1}, []int{5, 12}, []int{5, 12}},
		{"broadcast columns", []int{1, 12}, []int{5, 12}, []int{5, 12}},
	} {
		for rep := range 20 {
			lhsShape, rhsShape := shapes.Make(dtypes.Float32, tc.lhs...), shapes.Make(dtypes.Float32, tc.rhs...)
			operands := []*gobackend.Buffer{
				{Flat: values(lhsShape.Size()), RawShape: lhsShape},
				{Flat: values(rhsShape.Size()), RawShape: rhsShape},
			}
			node := &gobackend.Node{OpType: compute.OpTypeGreaterOrEqual, Shape: shapes.Make(dtypes.Bool, tc.out...)}
			want, got := execute(execGreaterOrEqual, node, operands...), execute(gobackend.PlannedNodeExecutor(avx2Float32GreaterOrEqualExecutor).Executor(), node, operands...)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s, repetition %d: element %d: got %v, want %v", tc.name, rep, i, got[i], want[i])
				}
			}
		}
	}
}

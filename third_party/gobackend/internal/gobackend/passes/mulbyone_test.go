package passes_test

import (
	"slices"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

// The readers of x·1 (ones reshaped, on either side) read x after compilation, with the same
// results; a product by a constant that is not all ones, one whose ones broadcast x to a
// larger shape, and one that is a function's output stay.
func TestMulByOneElision(t *testing.T) {
	backend := compute.MustNew()
	defer backend.Finalize()
	builder := backend.Builder("MulByOneElision").(*gobackend.Builder)
	main := builder.Main().(*gobackend.Function)
	shape := shapes.Make(dtypes.Float32, 2, 3)
	x, _ := main.Parameter("x", shape, nil)
	s, _ := main.Parameter("s", shapes.Make(dtypes.Float32, 1, 1), nil)
	one, _ := main.Constant([]float32{1})
	oneByOne, _ := main.Reshape(one, 1, 1)
	ones, _ := main.Constant([]float32{1, 1, 1, 1, 1, 1}, 2, 3)
	notOnes, _ := main.Constant([]float32{1, 1, 1, 1, 1, 2}, 2, 3)
	left, _ := main.Mul(oneByOne, x)   // elided: x
	right, _ := main.Mul(x, ones)      // elided: x
	kept, _ := main.Mul(x, notOnes)    // kept: not all ones
	widened, _ := main.Mul(s, ones)    // kept: the ones broadcast s
	output, _ := main.Mul(oneByOne, x) // kept: an output
	sum, _ := main.Add(left, right)
	all, _ := main.Add(sum, kept)
	all, _ = main.Add(all, widened)
	_ = main.Return([]compute.Value{all, output}, nil)

	exec, err := builder.Compile()
	if err != nil {
		t.Fatalf("Compile: %+v", err)
	}
	xNode := x.(*gobackend.Node)
	if got := sum.(*gobackend.Node).Inputs; got[0] != xNode || got[1] != xNode {
		t.Errorf("the sum reads %s and %s; want x twice", got[0].OpType, got[1].OpType)
	}
	if got := all.(*gobackend.Node).Inputs[1]; got != widened.(*gobackend.Node) {
		t.Errorf("the last sum reads %s; want the product that broadcasts s", got.OpType)
	}
	if got := all.(*gobackend.Node).Inputs[0].Inputs[1]; got != kept.(*gobackend.Node) {
		t.Errorf("the second sum reads %s; want the product by a constant that is not all ones", got.OpType)
	}
	if got := main.Outputs[1]; got != output.(*gobackend.Node) {
		t.Errorf("the second output is %s; want the product", got.OpType)
	}
	xBuf, _ := backend.BufferFromFlatData(0, []float32{1, 2, 3, 4, 5, 6}, shape)
	sBuf, _ := backend.BufferFromFlatData(0, []float32{10}, shapes.Make(dtypes.Float32, 1, 1))
	outputs, err := exec.Execute([]compute.Buffer{xBuf, sBuf}, nil, 0)
	if err != nil {
		t.Fatalf("Execute: %+v", err)
	}
	for i, want := range [][]float32{{13, 16, 19, 22, 25, 34}, {1, 2, 3, 4, 5, 6}} {
		if got := outputs[i].(*gobackend.Buffer).Flat.([]float32); !slices.Equal(got, want) {
			t.Errorf("output %d: got %v, want %v", i, got, want)
		}
	}
}

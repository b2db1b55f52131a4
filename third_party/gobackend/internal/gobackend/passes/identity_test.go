package passes_test

import (
	"slices"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

// The readers of Identity nodes (one, or a chain of two) read the operand after compilation,
// with the same results; an Identity that is a function's output stays.
func TestIdentityElision(t *testing.T) {
	backend := compute.MustNew()
	defer backend.Finalize()
	builder := backend.Builder("IdentityElision").(*gobackend.Builder)
	main := builder.Main().(*gobackend.Function)
	shape := shapes.Make(dtypes.Float32, 3)
	x, _ := main.Parameter("x", shape, nil)
	once, _ := main.Identity(x)
	twice, _ := main.Identity(once)
	sum, _ := main.Add(once, twice)
	product, _ := main.Mul(sum, x)
	_ = main.Return([]compute.Value{product, twice}, nil)

	exec, err := builder.Compile()
	if err != nil {
		t.Fatalf("Compile: %+v", err)
	}
	xNode := x.(*gobackend.Node)
	if got := sum.(*gobackend.Node).Inputs; got[0] != xNode || got[1] != xNode {
		t.Errorf("Add reads %s and %s; want x twice", got[0].OpType, got[1].OpType)
	}
	if got := main.Outputs[1]; got != twice.(*gobackend.Node) {
		t.Errorf("the second output is %s; want the Identity", got.OpType)
	}
	xBuf, _ := backend.BufferFromFlatData(0, []float32{1, 2, 3}, shape)
	outputs, err := exec.Execute([]compute.Buffer{xBuf}, nil, 0)
	if err != nil {
		t.Fatalf("Execute: %+v", err)
	}
	for i, want := range [][]float32{{2, 8, 18}, {1, 2, 3}} {
		if got := outputs[i].(*gobackend.Buffer).Flat.([]float32); !slices.Equal(got, want) {
			t.Errorf("output %d: got %v, want %v", i, got, want)
		}
	}
}

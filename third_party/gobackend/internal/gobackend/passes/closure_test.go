package passes_test

import (
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/compute/support/testutil"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

// TestImplicitBroadcastFusionInsideWhileBody runs a While whose body multiplies its state by
// a broadcast scalar, the pattern reverse-mode autodiff builds for a gradient (a scalar one
// broadcast and multiplied). The fusion rewrites the body's nodes when the main function is
// compiled, after the body was compiled: the body must be compiled again, or it schedules
// the graph as it was and fails with "input 0 for node Mul not computed yet".
func TestImplicitBroadcastFusionInsideWhileBody(t *testing.T) {
	backend := compute.MustNew()
	defer backend.Finalize()
	builder := backend.Builder("FusionInsideWhileBody").(*gobackend.Builder)
	main := builder.Main().(*gobackend.Function)
	state := shapes.Make(dtypes.Float32, 2, 3)

	cond, _ := main.Closure()
	i, _ := cond.Parameter("i", shapes.Make(dtypes.Int32), nil)
	_, _ = cond.Parameter("x", state, nil)
	three, _ := cond.Constant([]int32{3})
	less, _ := cond.LessThan(i, three)
	if err := cond.Return([]compute.Value{less}, nil); err != nil {
		t.Fatal(err)
	}

	body, _ := main.Closure()
	bi, _ := body.Parameter("i", shapes.Make(dtypes.Int32), nil)
	bx, _ := body.Parameter("x", state, nil)
	two, _ := body.Constant([]float32{2})
	scalar, _ := body.Reshape(two, 1, 1)
	twos, _ := body.BroadcastInDim(scalar, state, []int{0, 1})
	doubled, _ := body.Mul(bx, twos) // fused: Mul takes the [1, 1] reshape directly
	next, _ := body.Add(doubled, twos)
	one, _ := body.Constant([]int32{1})
	ni, _ := body.Add(bi, one)
	if err := body.Return([]compute.Value{ni, next}, nil); err != nil {
		t.Fatal(err)
	}

	i0, _ := main.Constant([]int32{0})
	x0, _ := main.Parameter("x0", state, nil)
	out, err := main.While(cond, body, i0, x0)
	if err != nil {
		t.Fatal(err)
	}
	if err := main.Return(out, nil); err != nil {
		t.Fatal(err)
	}
	exec, err := builder.Compile()
	if err != nil {
		t.Fatalf("Compile: %+v", err)
	}
	xBuf, _ := backend.BufferFromFlatData(0, []float32{0, 1, 2, 3, 4, 5}, state)
	outputs, err := exec.Execute([]compute.Buffer{xBuf}, nil, 0)
	if err != nil {
		t.Fatalf("Execute: %+v", err)
	}
	// Three times x ← 2x + 2: x·8 + 14.
	want := []float32{14, 22, 30, 38, 46, 54}
	if ok, diff := testutil.IsEqual(want, outputs[1].(*gobackend.Buffer).Flat); !ok {
		t.Errorf("While result mismatch:\n%s", diff)
	}
}

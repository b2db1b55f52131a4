package signature_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/internal/signature"
)

// affineIn and affineOut name the inputs and outputs of a program computing a·x + b and its
// sum: T is *graph.Node inside the program, an argument or a tensor outside.
type affineIn[T any] struct{ x, a, b T }

func (in *affineIn[T]) fields() []*T { return []*T{&in.x, &in.a, &in.b} }

type affineOut[T any] struct{ y, sum T }

func (o *affineOut[T]) fields() []*T { return []*T{&o.y, &o.sum} }

// A program whose inputs and outputs are named both inside and outside it.
func Example() {
	b, err := backend.New(backend.PatchedGo)
	if err != nil {
		panic(err)
	}
	ex, err := graph.NewExec(b, func(params []*graph.Node) []*graph.Node {
		var in affineIn[*graph.Node]
		signature.Set(in.fields(), params)
		out := affineOut[*graph.Node]{y: graph.Add(graph.Mul(in.a, in.x), in.b)}
		out.sum = graph.ReduceAllSum(out.y)
		return signature.Values(out.fields())
	})
	if err != nil {
		panic(err)
	}
	in := affineIn[any]{x: []float32{1, 2, 3}, a: float32(2), b: float32(1)}
	results, err := ex.Call(signature.Args(in.fields())...)
	if err != nil {
		panic(err)
	}
	var out affineOut[*tensors.Tensor]
	signature.Set(out.fields(), results)
	fmt.Println(out.y.Value(), out.sum.Value())
	// Output: [3 5 7] 15
}

// TestSet checks that Set fills the fields in their order and refuses a count that is not
// the signature's.
func TestSet(t *testing.T) {
	tests := []struct {
		name  string
		vals  []int
		want  affineOut[int]
		panic string
	}{
		{name: "in order", vals: []int{4, 9}, want: affineOut[int]{y: 4, sum: 9}},
		{name: "too few", vals: []int{4}, panic: "1 values for a signature of 2"},
		{name: "too many", vals: []int{4, 9, 1}, panic: "3 values for a signature of 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				switch {
				case tt.panic == "" && r != nil:
					t.Fatalf("panicked: %v", r)
				case tt.panic != "" && (r == nil || !strings.Contains(fmt.Sprint(r), tt.panic)):
					t.Fatalf("panic %v, want one saying %q", r, tt.panic)
				}
			}()
			var got affineOut[int]
			signature.Set(got.fields(), tt.vals)
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestValuesAndArgs checks that both list the fields in their order.
func TestValuesAndArgs(t *testing.T) {
	in := affineIn[int]{x: 1, a: 2, b: 3}
	if got := signature.Values(in.fields()); fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("Values = %v, want [1 2 3]", got)
	}
	if got := signature.Args(in.fields()); fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("Args = %v, want [1 2 3]", got)
	}
}

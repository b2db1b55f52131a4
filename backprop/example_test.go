package backprop_test

import (
	"fmt"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/quce-go/quce/third_party/gobackend"

	"github.com/quce-go/quce/backprop"
)

// A network stored as layers.DenseWithBias lays it out (here 2 → 3 → 1 with hand-set
// weights) is built with its backward pass on a tape; the tape's gradient of a loss around it
// is autodiff's.
func ExampleTape() {
	store := model.NewStore()
	store.VariableWithValue("/hidden_0/dense/weights", [][]float32{{1, -1, 0.5}, {2, 1, -1}})
	store.VariableWithValue("/hidden_0/dense/biases", []float32{0, 0.5, 0})
	store.VariableWithValue("/output/dense/weights", [][]float32{{1}, {-1}, {3}})
	store.VariableWithValue("/output/dense/biases", []float32{0.1})
	net, err := backprop.NewMLP(store, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := gobackend.New("")
	out, err := ExecOnceN(b, func(x *Node) []*Node {
		tape := new(backprop.Tape)
		y := net.Taped(tape, x)
		loss := ReduceAllSum(Square(y)) // any formula around the network
		// The third hidden unit is off (its pre-activation is −0.5): no gradient through it.
		return []*Node{y, tape.Gradient(loss, x)}
	}, [][]float32{{1, 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("output:", out[0].Value(), "gradient:", out[1].Value())
	// Output:
	// output: [[2.6]] gradient: [[10.4 5.2]]
}

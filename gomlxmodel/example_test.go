package gomlxmodel_test

import (
	"fmt"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/quce-go/quce/third_party/gobackend"

	"github.com/quce-go/quce/gomlxmodel"
)

// A GoMLX model in its own form — variables in a model.Store and a model function — becomes
// a model the explainer takes. Here a linear 3-class model with hand-set weights; a real one
// would be trained with train.Trainer or loaded with checkpoint.Load.
func ExampleNew() {
	store := model.NewStore()
	store.RootScope().VariableWithValue("weights", [][]float32{{1, 0, -1}, {0, 1, 1}})
	fn := func(scope *model.Scope, x *Node) *Node {
		return Dot(x, scope.GetVariable("weights").NodeValue(x.Graph())).Product()
	}
	m, err := gomlxmodel.New(store, fn, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("features:", m.NumFeatures(), "outputs:", m.NumOutputs())

	// Forward builds into any graph; gradients with respect to x come from autodiff.
	b, _ := gobackend.New("")
	out, err := ExecOnceN(b, func(x *Node) []*Node {
		logits := m.Forward(x)
		return []*Node{logits, Gradient(ReduceAllSum(logits), x)[0]}
	}, [][]float32{{2, 3}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("logits:", out[0].Value(), "gradient:", out[1].Value())
	// Output:
	// features: 2 outputs: 3
	// logits: [[2 3 1]] gradient: [[0 2]]
}

// A model function that fails to build on J inputs is an error, not a panic.
func ExampleNew_wrongWidth() {
	store := model.NewStore()
	store.RootScope().VariableWithValue("weights", [][]float32{{1}, {2}})
	_, err := gomlxmodel.New(store, func(scope *model.Scope, x *Node) *Node {
		return Dot(x, scope.GetVariable("weights").NodeValue(x.Graph())).Product()
	}, 3)
	fmt.Println(err != nil)
	// Output: true
}

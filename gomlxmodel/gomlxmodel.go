// Package gomlxmodel adapts a classifier written in GoMLX's own form — a model.Store holding
// the trained variables and a model function of a *model.Scope and the input node — to the
// model interface the explainer uses (quce.Model).
//
// The store is cloned with its variables embedded as graph constants, so the model can be
// built into any graph (the explainer's optimisation steps, the baselines' probes) and the
// backend can fold the weights; the caller's store is never changed. Gradients with respect
// to the input come from GoMLX's autodiff.
//
//	store := model.NewStore()
//	// ... train with train.Trainer, or load with checkpoint.Load(store).Dir(dir).Done() ...
//	m, err := gomlxmodel.New(store, func(scope *model.Scope, x *graph.Node) *graph.Node {
//		return layers.DenseWithBias(scope.In("out"), activation.Relu(layers.DenseWithBias(scope.In("hidden"), x, 32)), 3)
//	}, 4)
package gomlxmodel

import (
	"fmt"
	"sync"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/quce-go/quce/third_party/gobackend"
)

// Fn is a model function in GoMLX's form: inputs [rows, features] to outputs [rows, C].
type Fn func(scope *model.Scope, x *Node) *Node

// Model is a GoMLX model with its trained variables. It implements quce.Model.
type Model struct {
	store    *model.Store // a constant-embedding clone of the caller's store
	fn       Fn
	features int
	outputs  int

	mu sync.Mutex // graph building reads the store; builds are serialised
}

// New checks fn on the store's variables and returns the model. features is the input
// width J; the output width C is read off a probe graph, which must give [rows, C] (or
// [rows], taken as one output).
func New(store *model.Store, fn Fn, features int) (*Model, error) {
	if store == nil || fn == nil {
		return nil, fmt.Errorf("gomlxmodel: a store and a model function are both needed")
	}
	if features <= 0 {
		return nil, fmt.Errorf("gomlxmodel: %d input features; fix: pass the data's feature count", features)
	}
	consts, err := constStore(store)
	if err != nil {
		return nil, err
	}
	m := &Model{store: consts, fn: fn, features: features}
	outputs, err := m.probeOutputs()
	if err != nil {
		return nil, err
	}
	m.outputs = outputs
	return m, nil
}

// constStore copies the store's variables (values cloned) into a store that embeds them as
// graph constants. Store.Clone is not used: in GoMLX v0.28.8 its variables lose the link
// to their store, so they would become graph parameters nobody feeds.
func constStore(store *model.Store) (*model.Store, error) {
	out := model.NewStore().WithVariableAsConst(true)
	for v := range store.IterVariables() {
		val, err := v.Value()
		if err != nil {
			return nil, fmt.Errorf("gomlxmodel: variable %s has no value: %w; fix: train or load the model before explaining it", v.Path(), err)
		}
		c, err := val.Clone()
		if err != nil {
			return nil, fmt.Errorf("gomlxmodel: copying variable %s: %w", v.Path(), err)
		}
		out.VariableWithValue(v.Path(), c)
	}
	return out, nil
}

// probeOutputs builds the model once on a symbolic batch of two rows to learn its output
// width, turning a panic in the model function into an error.
func (m *Model) probeOutputs() (outputs int, err error) {
	err = exceptions.TryCatch[error](func() {
		b, err := gobackend.New("")
		if err != nil {
			panic(err)
		}
		defer b.Finalize()
		g := NewGraph(b, "probe")
		x := Parameter(g, "x", shapes.Make(dtypes.Float32, 2, m.features))
		out := m.Forward(x)
		dims := out.Shape().Dimensions
		switch {
		case len(dims) == 1 && dims[0] == 2:
			outputs = 1
		case len(dims) == 2 && dims[0] == 2 && dims[1] >= 1:
			outputs = dims[1]
		default:
			exceptions.Panicf("the output has shape %v for 2 input rows; want [rows, C] or [rows]", out.Shape())
		}
	})
	if err != nil {
		return 0, fmt.Errorf("gomlxmodel: building the model on %d features: %w; fix: the model function must take [rows, %d] float32 and return [rows, C]", m.features, err, m.features)
	}
	return outputs, nil
}

// NumFeatures is the input width J.
func (m *Model) NumFeatures() int { return m.features }

// NumOutputs is C: 1 for a single binary logit or probability, else one per class.
func (m *Model) NumOutputs() int { return m.outputs }

// Forward builds the model's outputs [rows, C] for x [rows, J] in x's graph, with the
// weights as constants. A model function returning [rows] is reshaped to [rows, 1].
//
// A panic in the model function that is not an error (panic("...")) is made one: GoMLX
// turns only errors raised while a graph is built into the build's error, and a program
// whose build panicked otherwise cannot even be released (its Finalize waits forever).
func (m *Model) Forward(x *Node) *Node {
	m.mu.Lock()
	defer m.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(error); ok {
				panic(r)
			}
			panic(fmt.Errorf("gomlxmodel: the model function panicked: %v", r))
		}
	}()
	out := m.fn(m.store.RootScope(), x)
	if out.Rank() == 1 {
		out = ExpandAxes(out, -1)
	}
	return out
}

// CheckRows reports the first row of X whose width is not want, naming the model (what) in
// the message; no rows at all is an error too.
func CheckRows(what string, X [][]float32, want int) error {
	if len(X) == 0 {
		return fmt.Errorf("%s: no rows given", what)
	}
	for i, row := range X {
		if len(row) != want {
			return fmt.Errorf("%s: row %d has %d features, the model was trained on %d; fix: use data with the model's columns or retrain",
				what, i, len(row), want)
		}
	}
	return nil
}

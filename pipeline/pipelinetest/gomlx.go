package pipelinetest

import (
	"encoding/json"
	"fmt"
	"os"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/quce-go/quce/gomlxmodel"
)

// WBCGoMLX is the PyTorch-trained W-BC network of testdata/models/wbc_mlp_weights.json
// written as a user would write a GoMLX model: variables in a model.Store and a model
// function, a 30→16→ReLU→1 MLP. With raw, the function first standardises raw inputs with
// the mean and std the network was trained with; without, it is the network of wbc_std.onnx.
func WBCGoMLX(raw bool) (*gomlxmodel.Model, error) { return WBCGoMLXWide(raw, 16) }

// WBCGoMLXWide is WBCGoMLX with hidden (at least 16) hidden units: the network's 16 and
// hidden−16 more whose weights are all zero, so the same function (a zero unit adds exact
// zeros) with products of other widths, for timing the backend's kernels on a user's widths.
func WBCGoMLXWide(raw bool, hidden int) (*gomlxmodel.Model, error) {
	b, err := os.ReadFile(Fixture("models/wbc_mlp_weights.json"))
	if err != nil {
		return nil, err
	}
	type dense struct {
		Weights [][]float32 `json:"weights"`
		Biases  []float32   `json:"biases"`
	}
	var w struct {
		Hidden, Output dense
		Mean, Std      []float32
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("wbc_mlp_weights.json: %w", err)
	}
	if hidden < len(w.Hidden.Biases) {
		return nil, fmt.Errorf("WBCGoMLXWide: %d hidden units, fewer than the network's %d", hidden, len(w.Hidden.Biases))
	}
	for i := range w.Hidden.Weights {
		w.Hidden.Weights[i] = append(w.Hidden.Weights[i], make([]float32, hidden-len(w.Hidden.Weights[i]))...)
	}
	w.Hidden.Biases = append(w.Hidden.Biases, make([]float32, hidden-len(w.Hidden.Biases))...)
	for len(w.Output.Weights) < hidden {
		w.Output.Weights = append(w.Output.Weights, make([]float32, len(w.Output.Biases)))
	}
	store := model.NewStore()
	root := store.RootScope()
	for _, l := range []struct {
		name string
		d    dense
	}{{"hidden", w.Hidden}, {"output", w.Output}} {
		root.At("%s", l.name).VariableWithValue("weights", l.d.Weights)
		root.At("%s", l.name).VariableWithValue("biases", l.d.Biases)
	}
	root.VariableWithValue("mean", w.Mean)
	root.VariableWithValue("std", w.Std)
	fn := func(scope *model.Scope, x *Node) *Node {
		g := x.Graph()
		layer := func(name string, in *Node) *Node {
			s := scope.In("%s", name)
			return Add(Dot(in, s.GetVariable("weights").NodeValue(g)).Product(), ExpandAxes(s.GetVariable("biases").NodeValue(g), 0))
		}
		z := x
		if raw {
			mean, std := ExpandAxes(scope.GetVariable("mean").NodeValue(g), 0), ExpandAxes(scope.GetVariable("std").NodeValue(g), 0)
			z = Div(Sub(x, mean), std)
		}
		h := layer("hidden", z)
		return layer("output", Max(h, ZerosLike(h)))
	}
	return gomlxmodel.New(store, fn, len(w.Mean))
}

package pipeline_test

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/gomlxmodel"
	"github.com/quce-go/quce/onnxmodel"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// linear is a GoMLX model with J inputs and C outputs (all weights 0.1).
func linear(t *testing.T, j, c int) quce.Model {
	t.Helper()
	store := model.NewStore()
	w := make([][]float32, j)
	for i := range w {
		w[i] = make([]float32, c)
		for k := range w[i] {
			w[i][k] = 0.1
		}
	}
	store.RootScope().VariableWithValue("w", w)
	m, err := gomlxmodel.New(store, func(scope *model.Scope, x *Node) *Node {
		return Dot(x, scope.GetVariable("w").NodeValue(x.Graph())).Product()
	}, j)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A user's model that does not fit the data is refused before any training, with the fix.
func TestUserModelMustFitTheData(t *testing.T) {
	iris, err := pipelinetest.Iris()
	if err != nil {
		t.Fatal(err)
	}
	named, err := onnxmodel.Load(pipelinetest.Fixture("models/iris.onnx"), onnxmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	german, err := data.Embedded("german_credit", data.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	renamed := iris.Subset(seq(iris.Rows()))
	renamed.Features = append([]string(nil), iris.Features...)
	renamed.Features[0], renamed.Features[1] = renamed.Features[1], renamed.Features[0]
	for _, tc := range []struct {
		name  string
		data  *data.Dataset
		model quce.Model
		want  []string
	}{
		{"width", iris, linear(t, 30, 1), []string{"takes 30 inputs", "has 4", "fix:"}},
		// One input per column: categorical columns given as codes, not one-hot.
		{"codes for categories", german, linear(t, len(german.Columns), 1), []string{fmt.Sprintf("takes %d inputs, one per column", len(german.Columns)),
			"one-hot inputs", "data.LoadOptions.Types", "=integer"}},
		{"one output, three classes", iris, linear(t, 4, 1), []string{"one output", "3 classes", "fix:"}},
		{"two outputs, three classes", iris, linear(t, 4, 2), []string{"2 outputs", "3 classes", "fix:"}},
		{"three outputs, binary data", nil, linear(t, 30, 3), []string{"3 outputs", "2 classes", "fix:"}},
		{"feature names in another order", renamed, named, []string{"feature 1", "sepal_length", "fix:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pipeline.Prepare(pipeline.Options{Data: tc.data, Model: tc.model, SplitSeed: 1})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	// Two outputs on a binary target are accepted (softmax over two logits); the model,
	// whose two logits are equal, is weak, so explaining it is asked for.
	if _, err := pipeline.Prepare(pipeline.Options{Model: linear(t, 30, 2), SplitSeed: 1, CacheDir: pipelinetest.CacheDir(), AllowWeakModel: true}); err != nil {
		t.Errorf("two outputs on a binary target: %v", err)
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

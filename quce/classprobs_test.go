package quce_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/quce-go/quce/third_party/gobackend"

	"github.com/quce-go/quce/quce"
)

// overflowModel is a binary model whose logit is x₁ + (a − a), a = 1e30·x₀: x₁ where x₀ is
// small, NaN (∞ − ∞ in float32) where x₀ ≥ 1e9.
type overflowModel struct{}

func (overflowModel) NumFeatures() int { return 2 }
func (overflowModel) NumOutputs() int  { return 1 }
func (overflowModel) Forward(x *graph.Node) *graph.Node {
	a := graph.MulScalar(graph.Slice(x, graph.AxisRange(), graph.AxisRange(0, 1)), 1e30)
	return graph.Add(graph.Slice(x, graph.AxisRange(), graph.AxisRange(1, 2)), graph.Sub(a, a))
}

// ClassProbs gives the probabilities that Predict gives, and where the model's output is NaN
// it gives that row NaN probabilities (for the caller to count as the row's failure) where
// Predict refuses the call.
func TestClassProbsToleratesNonFiniteRows(t *testing.T) {
	b, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	clf, err := quce.NewClassifier(overflowModel{}, quce.Standardized, quce.Logits, identityScaler(2))
	if err != nil {
		t.Fatal(err)
	}
	finite := [][]float64{{-1e-31, 0}, {2e-31, 5}}
	want, err := clf.Predict(b, finite)
	if err != nil {
		t.Fatal(err)
	}
	probs := quce.NewClassProbs(b, clf)
	got, err := probs.At(context.Background(), append(finite, []float64{1e10, 0}))
	if err != nil {
		t.Fatal(err)
	}
	for i := range finite {
		for c := range want[i] {
			if got[i][c] != want[i][c] {
				t.Errorf("row %d class %d: %v, Predict %v", i, c, got[i][c], want[i][c])
			}
		}
	}
	if p := got[2]; !math.IsNaN(p[0]) || !math.IsNaN(p[1]) {
		t.Errorf("the NaN row: %v; want NaN probabilities", p)
	}
	var nonFinite *quce.NonFiniteOutputError
	if _, err := clf.Predict(b, [][]float64{{1e10, 0}}); !errors.As(err, &nonFinite) {
		t.Errorf("Predict of the overflowing row: %v; want a *quce.NonFiniteOutputError", err)
	}
	if _, err := probs.At(context.Background(), [][]float64{{1}}); err == nil {
		t.Error("At accepted a row of the wrong width")
	}
}

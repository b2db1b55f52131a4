package trainloop_test

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train"
	"github.com/gomlx/gomlx/ml/train/loss"

	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/internal/trainloop"
)

// A linear regression y = 2·x0 − x1 + 1 on 10 rows: a model small enough to train in
// milliseconds.
var (
	rows   = [][]float32{{0, 1}, {1, 0}, {1, 1}, {2, 1}, {0, 2}, {3, 1}, {1, 3}, {2, 2}, {3, 0}, {0, 0}}
	target = func(x []float32) float32 { return 2*x[0] - x[1] + 1 }
)

func linear(scope *model.Scope, x *graph.Node) *graph.Node {
	return layers.DenseWithBias(scope.In("output"), x, 1)
}

// spec is a run on the rows, 3 per batch (so 3 steps an epoch), with its progress recorded
// into progress.
func spec(progress *[][2]int) trainloop.Spec {
	return trainloop.Spec{
		Model: "linear", Seed: 1, LearningRate: 0.05, BatchSize: 3, MaxEpochs: 4, MaxSteps: 100,
		Progress: func(done, total int) { *progress = append(*progress, [2]int{done, total}) },
		Rows:     len(rows), Rand: rand.New(rand.NewPCG(1, 2)),
		Batch: func(idx []int) train.Batch {
			x, y := make([]float32, 0, 2*len(idx)), make([]float32, 0, len(idx))
			for _, i := range idx {
				x, y = append(x, rows[i]...), append(y, target(rows[i]))
			}
			return train.Batch{
				Inputs: []*tensors.Tensor{tensors.FromFlatDataAndDimensions(x, len(idx), 2)},
				Labels: []*tensors.Tensor{tensors.FromFlatDataAndDimensions(y, len(idx), 1)},
			}
		},
	}
}

// weights is every variable's values, in path order.
func weights(t *testing.T, s *model.Store) []float32 {
	t.Helper()
	values := map[string][]float32{}
	for v := range s.IterVariables() {
		values[v.Path()] = tensors.MustCopyFlatData[float32](v.MustValue())
	}
	var out []float32
	for _, path := range slices.Sorted(maps.Keys(values)) {
		out = append(out, values[path]...)
	}
	return out
}

func run(t *testing.T, s trainloop.Spec) trainloop.Result {
	t.Helper()
	r, err := trainloop.Run(modeltest.Backend(t), linear, loss.MeanSquaredError, s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The epochs run until MaxEpochs or MaxSteps, whichever ends first, with the progress told
// after each epoch; only the model's variables are kept.
func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxSteps   int
		wantEpochs int
		want       [][2]int
	}{
		{"the epochs end first", 100, 4, [][2]int{{3, 12}, {6, 12}, {9, 12}, {12, 12}}},
		{"the steps end first", 7, 3, [][2]int{{3, 7}, {6, 7}, {7, 7}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var progress [][2]int
			s := spec(&progress)
			s.MaxSteps = tc.maxSteps
			r := run(t, s)
			if r.Epochs != tc.wantEpochs || !slices.Equal(progress, tc.want) {
				t.Errorf("%d epochs, progress %v; want %d, %v", r.Epochs, progress, tc.wantEpochs, tc.want)
			}
			if n := r.Weights.NumVariables(); n != 2 {
				t.Errorf("kept %d variables, want the 2 of the model", n)
			}
		})
	}
}

// With a validation loss that never improves after the first epoch, the run stops after
// Patience more epochs and keeps the first epoch's weights, bit for bit.
func TestEarlyStop(t *testing.T) {
	var progress [][2]int
	one := spec(&progress)
	one.MaxEpochs = 1
	want := weights(t, run(t, one).Weights)

	s := spec(&progress)
	s.MaxEpochs = 10
	s.Validation = &trainloop.Validation{
		Loss: func(scope *model.Scope, x *graph.Node) *graph.Node {
			return graph.ReduceAllSum(graph.OnesLike(linear(scope, x)))
		},
		Rows:     tensors.FromFlatDataAndDimensions(slices.Concat(rows...), len(rows), 2),
		Patience: 2,
	}
	r := run(t, s)
	if r.Epochs != 3 {
		t.Errorf("ran %d epochs, want 1 + patience 2", r.Epochs)
	}
	if got := weights(t, r.Weights); !slices.Equal(got, want) {
		t.Errorf("kept weights %v, want the first epoch's %v", got, want)
	}
	s.Validation = nil
	s.MaxEpochs = 3
	if last := weights(t, run(t, s).Weights); slices.Equal(last, want) {
		t.Error("three epochs trained the same weights as one: the test cannot tell which were kept")
	}
}

// A loss that stops being finite ends the run with an error naming the model, the epoch
// (counted from 1) and the fix.
func TestNonFiniteLoss(t *testing.T) {
	var progress [][2]int
	s := spec(&progress)
	s.LearningRate = 1e30
	_, err := trainloop.Run(modeltest.Backend(t), linear, loss.MeanSquaredError, s)
	want := "linear: training loss became "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "at epoch 1; fix: lower the learning rate") {
		t.Errorf("got %v, want an error starting %q at epoch 1 with the fix", err, want)
	}
}

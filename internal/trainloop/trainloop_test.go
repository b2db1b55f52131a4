package trainloop_test

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/gomlx/gomlx/ml/train/optimizer"

	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/internal/trainloop"
)

// A linear regression y = 2·x0 − x1 + 1 on 10 rows: a model small enough to train in
// milliseconds.
var (
	rows   = [][]float32{{0, 1}, {1, 0}, {1, 1}, {2, 1}, {0, 2}, {3, 1}, {1, 3}, {2, 2}, {3, 0}, {0, 0}}
	target = func(x []float32) float32 { return 2*x[0] - x[1] + 1 }
)

func linear(scope *model.Scope, in []*graph.Node) *graph.Node {
	return layers.DenseWithBias(scope.In("output"), in[0], 1)
}

// data is the rows' inputs [n, 2] and targets [n, 1].
func data(rows [][]float32) (x, y *tensors.Tensor) {
	xs, ys := make([]float32, 0, 2*len(rows)), make([]float32, 0, len(rows))
	for _, r := range rows {
		xs, ys = append(xs, r...), append(ys, target(r))
	}
	return tensors.FromFlatDataAndDimensions(xs, len(rows), 2), tensors.FromFlatDataAndDimensions(ys, len(rows), 1)
}

// spec is a run on the rows, 3 per batch (so 3 steps an epoch), with its progress recorded
// into progress.
func spec(progress *[][2]int) trainloop.Spec {
	x, y := data(rows)
	return trainloop.Spec{
		Model: "linear", Seed: 1, LearningRate: 0.05, BatchSize: 3, MaxEpochs: 4, MaxSteps: 100,
		Progress: func(done, total int) { *progress = append(*progress, [2]int{done, total}) },
		Rand:     rand.New(rand.NewPCG(1, 2)),
		Inputs:   []*tensors.Tensor{x}, Labels: []*tensors.Tensor{y},
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
			return graph.ReduceAllSum(graph.OnesLike(linear(scope, []*graph.Node{x})))
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

// many is n rows of the same linear problem, for runs of many steps.
func many(n int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = []float32{float32(i%7) / 3, float32(i%5) / 2}
	}
	return out
}

// An execution runs an epoch's steps, however many: the executions are the epochs, far
// fewer than the steps, and the step budget still cuts an epoch short.
func TestExecutions(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		rows, batch, epochs    int
		maxSteps               int
		wantSteps, wantExecute int
	}{
		{"an epoch per execution", 10, 3, 4, 100, 12, 4},
		{"a long epoch", 70, 1, 2, 1000, 140, 2},
		{"the budget ends an epoch early", 70, 1, 2, 100, 100, 2}, // 70, then 30
	} {
		t.Run(tc.name, func(t *testing.T) {
			var progress [][2]int
			s := spec(&progress)
			x, y := data(many(tc.rows))
			s.Inputs, s.Labels = []*tensors.Tensor{x}, []*tensors.Tensor{y}
			s.BatchSize, s.MaxEpochs, s.MaxSteps, s.LearningRate = tc.batch, tc.epochs, tc.maxSteps, 0.01
			r := run(t, s)
			if r.Steps != tc.wantSteps || r.Executions != tc.wantExecute {
				t.Errorf("%d steps in %d executions, want %d in %d", r.Steps, r.Executions, tc.wantSteps, tc.wantExecute)
			}
		})
	}
}

// The same Spec trains bit-identical weights on reruns; another seed trains others.
func TestDeterministic(t *testing.T) {
	var progress [][2]int
	a, b := weights(t, run(t, spec(&progress)).Weights), weights(t, run(t, spec(&progress)).Weights)
	if !slices.Equal(a, b) {
		t.Errorf("two runs of the same spec trained %v and %v", a, b)
	}
	other := spec(&progress)
	other.Seed = 2
	if c := weights(t, run(t, other).Weights); slices.Equal(a, c) {
		t.Error("another seed trained the same weights")
	}
}

// The steps of an epoch in one execution update the weights exactly as GoMLX's train.Trainer
// does one step per execution on the same batches in the same order: each step's gradient
// is taken at the weights (and Adam moments) the step before left, in the loop (or unrolled,
// as on a backend without closures) and across executions.
func TestStepsAsOnePerExecution(t *testing.T) {
	const n, batch, epochs = 40, 1, 2 // 40 steps an epoch
	rows := many(n)
	var progress [][2]int
	s := spec(&progress)
	s.BatchSize, s.MaxEpochs = batch, epochs

	store := model.NewStore()
	store.RootScope().SetParam(model.ParamInitialSeed, int64(s.Seed))
	opt := optimizer.Adam().LearningRate(s.LearningRate).Betas(0.9, 0.999).Epsilon(1e-8).Done()
	trainer := train.NewTrainer(modeltest.Backend(t), store, func(scope *model.Scope, x *graph.Node) *graph.Node {
		return linear(scope, []*graph.Node{x})
	}, loss.MeanSquaredError, opt, nil, nil)
	shuffle, order := rand.New(rand.NewPCG(1, 2)), make([]int, n)
	for i := range order {
		order[i] = i
	}
	for range epochs {
		shuffle.Shuffle(n, func(a, b int) { order[a], order[b] = order[b], order[a] })
		for start := 0; start+batch <= n; start += batch {
			bx, by := data(slices.Collect(func(yield func([]float32) bool) {
				for _, i := range order[start : start+batch] {
					if !yield(rows[i]) {
						return
					}
				}
			}))
			metrics, err := trainer.TrainStep(train.Batch{Inputs: []*tensors.Tensor{bx}, Labels: []*tensors.Tensor{by}})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range metrics {
				m.FinalizeAll()
			}
		}
	}
	trained := model.NewStore()
	for v := range store.IterVariables() {
		if v.Trainable {
			if _, err := trained.CreateVariable(v.Path(), v.MustValue()); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := weights(t, trained)

	for _, unrolled := range []bool{false, true} {
		t.Run(fmt.Sprintf("unrolled=%v", unrolled), func(t *testing.T) {
			if unrolled {
				defer trainloop.WithoutClosures()()
			}
			x, y := data(rows)
			s.Inputs, s.Labels, s.Rand = []*tensors.Tensor{x}, []*tensors.Tensor{y}, rand.New(rand.NewPCG(1, 2))
			r, err := trainloop.Run(modeltest.Backend(t), linear, loss.MeanSquaredError, s)
			if err != nil {
				t.Fatal(err)
			}
			if got := weights(t, r.Weights); !slices.Equal(got, want) {
				t.Errorf("an epoch per execution trained %v, a step per execution %v", got, want)
			}
		})
	}
}

// A cancelled Context stops the run before its next execution, with an error that wraps the
// cause and names the model.
func TestCancelled(t *testing.T) {
	var progress [][2]int
	s := spec(&progress)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.Context = ctx
	s.Progress = func(done, _ int) {
		if done >= 6 {
			cancel() // after the second epoch
		}
	}
	_, err := trainloop.Run(modeltest.Backend(t), linear, loss.MeanSquaredError, s)
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "linear: training stopped after 6 steps") {
		t.Errorf("got %v, want the run stopped after 6 steps (2 epochs), wrapping context.Canceled", err)
	}
}

// An epoch's program holds its step once: the variables are learnt from a step built in a
// graph that is never compiled, not from a copy of the step built before the loop, which
// XLA would compile (and every execution run) beside the loop's.
func TestStepBuiltOnceAGraph(t *testing.T) {
	modeltest.NeedLoops(t) // without loops an epoch's steps are unrolled in its program
	builds := map[*graph.Graph]int{}
	counting := func(scope *model.Scope, in []*graph.Node) *graph.Node {
		builds[in[0].Graph()]++
		return linear(scope, in)
	}
	var progress [][2]int
	r, err := trainloop.Run(modeltest.Backend(t), counting, loss.MeanSquaredError, spec(&progress))
	if err != nil {
		t.Fatal(err)
	}
	if r.Steps < 2 || len(builds) == 0 {
		t.Fatalf("%d steps, %d graphs built: nothing to check", r.Steps, len(builds))
	}
	for g, n := range builds {
		if n != 1 {
			t.Errorf("graph %q built the step %d times, want once", g.Name(), n)
		}
	}
}

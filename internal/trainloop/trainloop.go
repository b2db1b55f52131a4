// Package trainloop is the one training loop of the built-in models (package classifier and
// package vae): Adam on shuffled minibatches, within the step budget of package budget, with
// an optional early stop on a validation loss.
//
// Each step is GoMLX's train.Trainer (the graph, the gradients and optimizer.Adam); the loop
// around it is written here rather than taken from train.Loop, which does not fit: the VAE
// measures a validation loss after every epoch, stops after Patience epochs without
// improvement and keeps the best epoch's weights, and train.Loop has no end-of-epoch hook
// nor a way to stop a run early (its epochs end only when the data does); it also stops on a
// non-finite loss with its own message, where a user needs one that names the model and the
// fix, and adds a bookkeeping variable to the store.
//
// A run is deterministic: the variables are initialised from Spec.Seed (the store's
// initializer_seed), the rows are shuffled with Spec.Rand before each epoch, and the steps
// take whole batches in that order, so the same data and Spec train bit-identical weights on
// the same backend.
package trainloop

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train"
	"github.com/gomlx/gomlx/ml/train/optimizer"

	"github.com/quce-go/quce/internal/budget"
)

// Adam's constants, as in PyTorch and the paper (GoMLX's own default ε is 1e-7).
const (
	adamBeta1   = 0.9
	adamBeta2   = 0.999
	adamEpsilon = 1e-8
)

// Spec describes one training run.
type Spec struct {
	Model        string          // the model's name in errors: "classifier", "vae"
	Seed         uint64          // seeds the variables' initialisation
	LearningRate float64         // Adam's step size
	BatchSize    int             // rows per step as configured; budget.Batch grows it on large data
	MaxEpochs    int             // passes over the rows at most
	MaxSteps     int             // steps at most (positive)
	Progress     budget.Progress // told the steps done and the most there will be after each epoch
	Rows         int             // the number of training rows
	// Rand shuffles the rows before each epoch; Batch may draw from it too (the VAE's noise).
	Rand *rand.Rand
	// Batch makes a step's inputs and labels from the training rows with these indices. The
	// trainer takes ownership of (and frees) the tensors: fresh ones each call.
	Batch func(rows []int) train.Batch
	// Validation, if set, stops the run early and keeps the best epoch's weights; without
	// it every epoch runs (within MaxSteps) and the last weights are kept.
	Validation *Validation
}

// Validation is a loss on held-out rows, measured after every epoch.
type Validation struct {
	// Loss builds the mean loss of the rows x from the variables being trained.
	Loss func(scope *model.Scope, x *graph.Node) *graph.Node
	Rows *tensors.Tensor
	// Patience is how many epochs without a lower validation loss end the run.
	Patience int
}

// Result is what a run trained.
type Result struct {
	// Weights holds the model's trainable variables only, not the optimizer's moments, step
	// counters, metrics or random state: what a user loads should be the model, not the
	// training run.
	Weights *model.Store
	Epochs  int // epochs run
}

// Run trains modelFn (as train.NewTrainer takes it) with loss on the batches spec.Batch
// makes.
func Run[F train.ModelFnCompatible](b compute.Backend, modelFn F, loss train.LossFn, spec Spec) (Result, error) {
	store := model.NewStore()
	// The store's random generator (used by the initialisers) starts from this seed.
	store.RootScope().SetParam(model.ParamInitialSeed, int64(spec.Seed))
	opt := optimizer.Adam().LearningRate(spec.LearningRate).Betas(adamBeta1, adamBeta2).Epsilon(adamEpsilon).Done()
	r := &run{Spec: spec, store: store, trainer: train.NewTrainer(b, store, modelFn, loss, opt, nil, nil)}
	r.batchSize = budget.Batch(spec.BatchSize, spec.Rows)
	r.order = make([]int, spec.Rows)
	for i := range r.order {
		r.order[i] = i
	}
	if v := spec.Validation; v != nil {
		exec, err := model.NewExec(b, store, v.Loss)
		if err != nil {
			return Result{}, err
		}
		defer exec.Finalize()
		r.validate = func() (float64, error) {
			out, err := exec.Call(v.Rows)
			if err != nil {
				return 0, fmt.Errorf("%s: validation loss: %w", spec.Model, err)
			}
			defer out[0].FinalizeAll()
			return float64(tensors.ToScalar[float32](out[0])), nil
		}
	}
	return r.epochs()
}

// run is one training run's state.
type run struct {
	Spec
	store     *model.Store
	trainer   *train.Trainer
	batchSize int   // rows per step, as the budget grows it
	order     []int // the rows in this epoch's order
	steps     int   // steps taken so far
	validate  func() (float64, error)
}

// epochs runs the epochs until MaxEpochs, MaxSteps or the early stop, and returns the
// weights to keep.
func (r *run) epochs() (Result, error) {
	total := min(r.MaxEpochs*(r.Rows/r.batchSize), r.MaxSteps)
	best, since, epoch := math.Inf(1), 0, 0
	var kept *model.Store
	for epoch = 1; epoch <= r.MaxEpochs && r.steps < r.MaxSteps && (r.validate == nil || since < r.Validation.Patience); epoch++ {
		last, err := r.epoch()
		if err != nil {
			return Result{}, err
		}
		// A NaN in the weights keeps the loss NaN, so checking once an epoch is enough.
		if math.IsNaN(float64(last)) || math.IsInf(float64(last), 0) {
			return Result{}, fmt.Errorf("%s: training loss became %v at epoch %d; fix: lower the learning rate (Config.LearningRate in Go), or check the data for extreme values", r.Model, last, epoch)
		}
		if r.validate != nil {
			loss, err := r.validate()
			if err != nil {
				return Result{}, err
			}
			if loss < best {
				// The trainer donates the variables' buffers to the next step: keep a copy.
				if kept, err = r.trainedVariables(true); err != nil {
					return Result{}, err
				}
				best, since = loss, 0
			} else {
				since++
			}
		}
		r.Progress.Report(r.steps, total)
	}
	if kept == nil { // no validation, or no validation loss was finite (the NaN check makes that unlikely)
		var err error
		if kept, err = r.trainedVariables(false); err != nil {
			return Result{}, err
		}
	}
	return Result{Weights: kept, Epochs: epoch - 1}, nil
}

// epoch shuffles the rows and takes a step on each whole batch of them (so one compiled step
// serves them all; the shuffle means every row is used over the epochs), until MaxSteps. It
// returns the last step's loss.
func (r *run) epoch() (last float32, err error) {
	r.Rand.Shuffle(len(r.order), func(a, b int) { r.order[a], r.order[b] = r.order[b], r.order[a] })
	for start := 0; start+r.batchSize <= len(r.order) && r.steps < r.MaxSteps; start += r.batchSize {
		r.steps++
		metrics, err := r.trainer.TrainStep(r.Batch(r.order[start : start+r.batchSize]))
		if err != nil {
			return 0, fmt.Errorf("%s: training step: %w", r.Model, err)
		}
		last = tensors.ToScalar[float32](metrics[0])
		for _, m := range metrics {
			m.FinalizeAll()
		}
	}
	return last, nil
}

// trainedVariables copies the trainable variables out of the training store, cloning their
// values if asked (the next step would otherwise overwrite them).
func (r *run) trainedVariables(clone bool) (*model.Store, error) {
	to := model.NewStore()
	for v := range r.store.IterVariables() {
		if !v.Trainable {
			continue
		}
		value, err := v.Value()
		if err == nil && clone {
			value, err = value.Clone()
		}
		if err == nil {
			_, err = to.CreateVariable(v.Path(), value)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: variable %s: %w", r.Model, v.Path(), err)
		}
	}
	return to, nil
}

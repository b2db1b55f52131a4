// Package trainloop is the one training loop of the built-in models (package classifier and
// package vae): Adam on shuffled minibatches, within the step budget of package budget, with
// an optional early stop on a validation loss.
//
// # One execution per epoch
//
// A graph execution costs a fixed overhead (on an accelerator: a launch and transfers) that a
// small model's step does not amortise, so a run does not execute one graph per minibatch
// step. The training rows (inputs and labels) are given to every execution as the same
// tensors, so they are copied to the device once and stay there; an execution gets only its
// epoch's row order (int32 indices [steps, batch]) and runs all the epoch's steps in a
// graph.While loop whose state is the step index, the steps' losses and every variable the
// step uses (the model's weights, Adam's moments and step counter), and which reads the rows,
// the order and the noise as its consts (package whileloop builds it, so that XLA compiles
// it too). A step gathers its rows by index inside the graph, builds the model and its loss,
// and updates the variables with GoMLX's optimizer.Adam (optimizer.UpdateGraph, which takes
// the gradients of the step's loss with respect to the variables' values in the loop state,
// so each step reads the weights and moments the step before wrote, as consecutive
// executions would). With a validation loss, the execution also measures it on the
// held-out rows (kept on the device too) after the loop. So W-BC's classifier (14 steps an
// epoch) trains in 100 executions instead of 1 400, and the VAE in one execution per epoch
// instead of one per step plus one per validation.
//
// The loop's state must hold every variable a step uses, and a variable exists only once a
// step has been built (the first build creates the model's and Adam's, with their
// initialisers), so one step is first built in a graph of its own that is never compiled,
// to learn them. The execution's program then holds the step once, in the loop body: built
// in the program before the loop too, as it once was, the step was compiled twice (W-BC's
// classifier epoch was 406 graph nodes where it is now 246, the VAE's 1 041 where 612),
// which on XLA is compile time every training run pays. A While loop was chosen over
// unrolling the steps in one graph because its graph stays one step long however long the
// epoch is: unrolled, the graph (and an accelerator's compilation) grows with the steps, up
// to 200 an epoch on large data (package budget); a backend without closures
// (Capabilities().Functions false: ONNX Runtime) gets the steps unrolled all the same. The
// model functions stay ordinary GoMLX ones, reading their variables through their scope:
// inside the loop body each variable's value is set to its loop-state parameter
// (model.Variable.SetNodeValue), and after the loop to the loop's result.
//
// Between executions the loop checks Spec.Context (a cancelled run stops there, before its
// next execution), and between epochs it checks the loss, reports progress, keeps the best
// weights and decides the early stop.
//
// The steps are those that one execution of GoMLX's train.Trainer per step takes (this
// loop's earlier form): the same rows in the same order, the same noise, the same Adam
// updates. On the pure-Go backend the weights are bit-identical to that form's (a test
// checks it against train.Trainer; the classifier and the VAE on W-BC and German credit
// were checked by their checkpoints' checksums), so models cached by the earlier form stay
// valid and the cache key did not change.
//
// # Order of the rows
//
// A run is deterministic: the variables are initialised from Spec.Seed (the store's
// initializer_seed); before each epoch the rows are shuffled with Spec.Rand, and the epoch's
// steps take whole batches in that order (the last rows, fewer than a batch, wait for a later
// epoch's shuffle); Spec.Noise then draws each step's extra inputs, step after step, from the
// same generator. The same data and Spec train bit-identical weights on the same backend.
package trainloop

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train"
	"github.com/gomlx/gomlx/ml/train/optimizer"

	"github.com/quce-go/quce/internal/budget"
	"github.com/quce-go/quce/internal/signature"
	"github.com/quce-go/quce/internal/whileloop"
)

// Adam's constants, as in PyTorch and the paper (GoMLX's own default ε is 1e-7).
const (
	adamBeta1   = 0.9
	adamBeta2   = 0.999
	adamEpsilon = 1e-8
)

// ModelFn builds the model's prediction for one step from the step's inputs: the batch's
// rows of each of Spec.Inputs, then the step's slice of each of Spec.Noise's tensors.
type ModelFn func(scope *model.Scope, inputs []*graph.Node) *graph.Node

// Spec describes one training run.
type Spec struct {
	Model        string          // the model's name in errors: "classifier", "vae"
	Seed         uint64          // seeds the variables' initialisation
	LearningRate float64         // Adam's step size
	BatchSize    int             // rows per step as configured; budget.Batch grows it on large data
	MaxEpochs    int             // passes over the rows at most
	MaxSteps     int             // steps at most (positive)
	Progress     budget.Progress // told the steps done and the most there will be after each epoch
	// Context, if set, stops the run between executions once it is cancelled; the error
	// then wraps its cause (context.Canceled or context.DeadlineExceeded).
	Context context.Context
	// Inputs and Labels hold every training row, the rows on axis 0 (Labels may be empty
	// when the loss needs none). The run passes the same tensors to every execution, so they
	// are transferred to the device once.
	Inputs, Labels []*tensors.Tensor
	// Rand shuffles the rows before each epoch; Noise may draw from it too.
	Rand *rand.Rand
	// Noise, if set, draws extra inputs for steps steps of batch rows each (the VAE's
	// noise): tensors [steps, batch, ...], fresh each call (the run frees them).
	Noise func(steps, batch int) []*tensors.Tensor
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
	Stats
}

// Stats counts what a run did.
type Stats struct {
	Epochs     int `json:"epochs"`     // epochs run
	Steps      int `json:"steps"`      // minibatch steps (optimiser updates) taken
	Executions int `json:"executions"` // graph executions that took them
	// FirstExecutionSeconds is the wall time of the first execution, which compiles the
	// epoch's program: on an accelerator most of a short run (the later epochs of the same
	// length reuse it).
	FirstExecutionSeconds float64 `json:"first_execution_seconds"`
}

// Run trains modelFn with loss (as train.Trainer takes it; labels are the batch's rows of
// Spec.Labels) on the rows of spec.Inputs.
func Run(b compute.Backend, modelFn ModelFn, loss train.LossFn, spec Spec) (Result, error) {
	if len(spec.Inputs) == 0 {
		return Result{}, fmt.Errorf("%s: no training inputs", spec.Model)
	}
	store := model.NewStore()
	// The store's random generator (used by the initialisers) starts from this seed.
	store.RootScope().SetParam(model.ParamInitialSeed, int64(spec.Seed))
	r := &run{
		Spec: spec, store: store, modelFn: modelFn, loss: loss,
		opt: optimizer.Adam().LearningRate(spec.LearningRate).Betas(adamBeta1, adamBeta2).Epsilon(adamEpsilon).Done(),
	}
	rows := spec.Inputs[0].Shape().Dimensions[0]
	r.batchSize = budget.Batch(spec.BatchSize, rows)
	r.order = make([]int, rows)
	for i := range r.order {
		r.order[i] = i
	}
	exec, err := model.NewExec(b, store, r.stepsGraph)
	if err != nil {
		return Result{}, err
	}
	defer exec.Finalize()
	r.exec = exec
	return r.epochs()
}

// run is one training run's state.
type run struct {
	Spec
	store     *model.Store
	modelFn   ModelFn
	loss      train.LossFn
	opt       optimizer.Interface
	exec      *model.Exec
	batchSize int   // rows per step, as the budget grows it
	order     []int // the rows in this epoch's order
	noise     int   // how many tensors Spec.Noise gives
	Stats
}

// epochs runs the epochs until MaxEpochs, MaxSteps or the early stop, and returns the
// weights to keep.
func (r *run) epochs() (Result, error) {
	total := min(r.MaxEpochs*(len(r.order)/r.batchSize), r.MaxSteps)
	best, since := math.Inf(1), 0
	var kept *model.Store
	for r.Epochs < r.MaxEpochs && r.Steps < r.MaxSteps && (r.Validation == nil || since < r.Validation.Patience) {
		r.Epochs++
		last, validation, err := r.epoch()
		if err != nil {
			return Result{}, err
		}
		// A NaN in the weights keeps the loss NaN, so checking once an epoch is enough.
		if math.IsNaN(float64(last)) || math.IsInf(float64(last), 0) {
			return Result{}, fmt.Errorf("%s: training loss became %v at epoch %d; fix: lower the learning rate (Config.LearningRate in Go), or check the data for extreme values", r.Model, last, r.Epochs)
		}
		if r.Validation != nil {
			if float64(validation) < best {
				// The next execution donates the variables' buffers: keep a copy.
				if kept, err = r.trainedVariables(true); err != nil {
					return Result{}, err
				}
				best, since = float64(validation), 0
			} else {
				since++
			}
		}
		r.Progress.Report(r.Steps, total)
	}
	if kept == nil { // no validation, or no validation loss was finite (the NaN check makes that unlikely)
		var err error
		if kept, err = r.trainedVariables(false); err != nil {
			return Result{}, err
		}
	}
	return Result{Weights: kept, Stats: r.Stats}, nil
}

// epoch shuffles the rows and takes a step on each whole batch of them (so one compiled step
// serves them all; the shuffle means every row is used over the epochs), until MaxSteps, in
// one execution. It returns the last step's loss and, with a Validation, the validation loss
// after the epoch.
func (r *run) epoch() (last, validation float32, err error) {
	r.Rand.Shuffle(len(r.order), func(a, b int) { r.order[a], r.order[b] = r.order[b], r.order[a] })
	return r.execute(min(len(r.order)/r.batchSize, r.MaxSteps-r.Steps))
}

// execute runs the epoch's first k steps in one execution, and returns the last step's loss
// and, with a Validation, the validation loss after them.
func (r *run) execute(k int) (last, validation float32, err error) {
	if r.Context != nil {
		if err := context.Cause(r.Context); err != nil {
			return 0, 0, fmt.Errorf("%s: training stopped after %d steps: %w", r.Model, r.Steps, err)
		}
	}
	idx := make([]int32, k*r.batchSize)
	for i := range idx {
		idx[i] = int32(r.order[i])
	}
	// This execution's own tensors: the indices and the noise, freed once it ran.
	own := []*tensors.Tensor{tensors.FromFlatDataAndDimensions(idx, k, r.batchSize)}
	if r.Noise != nil {
		noise := r.Noise(k, r.batchSize)
		r.noise = len(noise)
		own = append(own, noise...)
	}
	args := make([]any, 0, len(r.Inputs)+len(r.Labels)+len(own)+1)
	for _, t := range slices.Concat(r.Inputs, r.Labels, own) {
		args = append(args, t)
	}
	if r.Validation != nil {
		args = append(args, r.Validation.Rows)
	}
	r.Executions++
	r.Steps += k
	start := time.Now()
	out, err := r.exec.Call(args...)
	if r.Executions == 1 {
		r.FirstExecutionSeconds = time.Since(start).Seconds()
	}
	for _, t := range own {
		t.FinalizeAll()
	}
	if err != nil {
		return 0, 0, fmt.Errorf("%s: training steps: %w", r.Model, err)
	}
	defer func() {
		for _, t := range out {
			t.FinalizeAll()
		}
	}()
	var res epochOuts[*tensors.Tensor]
	signature.Set(res.fields(r.Validation != nil), out)
	last = tensors.MustCopyFlatData[float32](res.losses)[k-1]
	if r.Validation != nil {
		validation = tensors.ToScalar[float32](res.validation)
	}
	return last, validation, nil
}

// hasClosures says whether b runs graph.While; a variable so that a test can take the
// unrolled path on the pure-Go backend.
var hasClosures = whileloop.Runs

// epochInputs are one execution's graph inputs.
type epochInputs struct {
	data, labels []*graph.Node // Spec.Inputs and Spec.Labels: every training row
	order        *graph.Node   // the rows of each step, int32 [K, batch]
	noise        []*graph.Node // Spec.Noise's tensors, [K, batch, ...]
}

// epochInputs names the first nodes of nodes as an execution's inputs (in their order as
// graph inputs: Spec.Inputs, Spec.Labels, the order, Noise's tensors) and returns the rest.
func (r *run) epochInputs(nodes []*graph.Node) (in epochInputs, rest []*graph.Node) {
	in.data, nodes = nodes[:len(r.Inputs)], nodes[len(r.Inputs):]
	in.labels, nodes = nodes[:len(r.Labels)], nodes[len(r.Labels):]
	in.order, nodes = nodes[0], nodes[1:]
	in.noise, nodes = nodes[:r.noise], nodes[r.noise:]
	return in, nodes
}

// nodes are the inputs in the order epochInputs names them.
func (in epochInputs) nodes() []*graph.Node {
	return slices.Concat(in.data, in.labels, []*graph.Node{in.order}, in.noise)
}

// epochOuts are an epoch execution's outputs, by name: the K steps' losses [K] and, with a
// Validation, the loss on its rows after them (T is *graph.Node inside the program,
// *tensors.Tensor outside).
type epochOuts[T any] struct{ losses, validation T }

func (o *epochOuts[T]) fields(validated bool) []*T {
	if validated {
		return []*T{&o.losses, &o.validation}
	}
	return []*T{&o.losses}
}

// stepsGraph builds one epoch's execution: its arguments are Spec.Inputs, Spec.Labels, the
// epoch's row indices [K, batch], Noise's tensors [K, batch, ...] and, with a Validation,
// its rows; its outputs epochOuts.
func (r *run) stepsGraph(scope *model.Scope, args []*graph.Node) []*graph.Node {
	g := args[0].Graph()
	scope.Store().SetTraining(g, true)
	in, args := r.epochInputs(args)
	k := in.order.Shape().Dimensions[0]
	// record puts step i's loss into the losses [K] (in the function it is called in).
	record := func(losses, i, loss *graph.Node) *graph.Node {
		stepOf := graph.Iota(losses.Graph(), shapes.Make(dtypes.Int32, k), 0)
		return graph.Where(graph.Equal(stepOf, i), graph.BroadcastToDims(loss, k), losses)
	}
	var losses *graph.Node
	if k > 1 && hasClosures(g.Backend()) {
		losses = r.loop(scope, in, k, record)
	} else { // one step, or a backend without closures (ONNX Runtime): the steps unrolled
		for i := range k {
			at := graph.Const(g, int32(i))
			loss := r.step(scope, in, at)
			if losses == nil {
				losses = graph.Zeros(g, shapes.Make(loss.DType(), k))
			}
			losses = record(losses, at, loss)
		}
	}
	out := epochOuts[*graph.Node]{losses: losses}
	if r.Validation != nil {
		validationRows := args[0] // what epochInputs left: the execution's last argument
		out.validation = r.Validation.Loss(fresh(scope), validationRows)
	}
	return signature.Values(out.fields(r.Validation != nil))
}

// epochState is the loop's state, by name: the step index (int32), the steps' losses [K] so
// far, and the values of the variables a step uses (stepVariables' order).
type epochState struct {
	step, losses *graph.Node
	vars         []*graph.Node
}

func (s *epochState) fields() []**graph.Node {
	f := []**graph.Node{&s.step, &s.losses}
	for j := range s.vars {
		f = append(f, &s.vars[j])
	}
	return f
}

// loop takes the k steps in a graph.While whose state is the step index, the losses and
// every variable a step uses, and leaves the variables' values as the loop ends them. The
// epoch's inputs reach the loop as its consts (package whileloop: XLA compiles no loop that
// reads a node of the main function).
func (r *run) loop(scope *model.Scope, in epochInputs, k int, record func(losses, i, loss *graph.Node) *graph.Node) *graph.Node {
	g := in.order.Graph()
	vars, lossDType := r.stepVariables(scope, in)
	// values are the variables' values in g (the model and Adam read and write them).
	values := func(g *graph.Graph) []*graph.Node {
		out := make([]*graph.Node, len(vars))
		for j, v := range vars {
			out[j] = v.NodeValue(g)
		}
		return out
	}
	// name names a state's nodes.
	name := func(nodes []*graph.Node) epochState {
		s := epochState{vars: make([]*graph.Node, len(vars))}
		signature.Set(s.fields(), nodes)
		return s
	}
	// unpack names a state, and makes its values the variables'.
	unpack := func(nodes []*graph.Node) epochState {
		s := name(nodes)
		for j, v := range vars {
			v.SetNodeValue(s.vars[j])
		}
		return s
	}
	first := epochState{step: graph.ScalarZero(g, dtypes.Int32), losses: graph.Zeros(g, shapes.Make(lossDType, k)), vars: values(g)}
	results := whileloop.Build(signature.Values(first.fields()), in.nodes(),
		func(state, _ []*graph.Node) []*graph.Node {
			s := name(state)
			return []*graph.Node{graph.LessThan(s.step, graph.Const(s.step.Graph(), int32(k)))}
		},
		func(state, consts []*graph.Node) []*graph.Node {
			s := unpack(state)
			in, _ := r.epochInputs(consts)
			loss := r.step(scope, in, s.step)
			next := epochState{step: graph.AddScalar(s.step, 1), losses: record(s.losses, s.step, loss), vars: values(s.step.Graph())}
			return signature.Values(next.fields())
		})
	return unpack(results).losses
}

// stepVariables returns the variables a step uses (the model's and Adam's, in the store's
// order) and its loss's dtype. The loop's state must hold every such variable before the
// loop is built, but a variable only exists once a step has been built (the first build
// creates them, with their initialisers), so one step is built in a graph of its own that
// is never compiled: built in the execution's graph, before the loop, it would be compiled
// (on XLA, seconds) and run as a second copy of the step beside the loop's.
func (r *run) stepVariables(scope *model.Scope, in epochInputs) ([]*model.Variable, dtypes.DType) {
	g := graph.NewGraph(in.order.Graph().Backend(), "trainloop.stepVariables")
	defer g.Finalize()
	model.SetStore(g, scope.Store())
	scope.Store().SetTraining(g, true)
	nodes := in.nodes()
	for i, x := range nodes {
		nodes[i] = graph.Parameter(g, fmt.Sprintf("input%d", i), x.Shape())
	}
	first, _ := r.epochInputs(nodes)
	loss := r.step(scope, first, graph.ScalarZero(g, dtypes.Int32))
	var vars []*model.Variable
	for v := range scope.Store().IterVariables() {
		if v.InUseByGraph(g) {
			vars = append(vars, v)
		}
	}
	return vars, loss.DType()
}

// step builds step i (an int32 scalar) of the epoch: its rows gathered by index, the model
// and its loss, and Adam's update of the variables. It returns the step's loss.
func (r *run) step(scope *model.Scope, in epochInputs, i *graph.Node) *graph.Node {
	at := graph.Reshape(i, 1)
	rows := graph.InsertAxes(graph.Gather(in.order, at), -1) // [batch, 1]
	inputs := make([]*graph.Node, 0, len(in.data)+len(in.noise))
	for _, x := range in.data {
		inputs = append(inputs, graph.Gather(x, rows))
	}
	for _, x := range in.noise {
		inputs = append(inputs, graph.Gather(x, at))
	}
	labels := make([]*graph.Node, len(in.labels))
	for j, y := range in.labels {
		labels[j] = graph.Gather(y, rows)
	}
	// The model is built in a fresh scope at the same path each time (a Scope refuses to
	// enter a sub-scope twice), so every step uses the same variables.
	loss := r.loss(labels, []*graph.Node{r.modelFn(fresh(scope), inputs)})
	if !loss.Shape().IsScalar() {
		loss = graph.ReduceAllMean(loss)
	}
	// The gradients are taken with respect to the variables' values as the previous step
	// left them (Variable.NodeValue), and the update becomes their new values.
	r.opt.UpdateGraph(scope, i.Graph(), loss)
	return loss
}

// fresh is a scope at scope's path that has entered no sub-scope yet.
func fresh(scope *model.Scope) *model.Scope { return scope.Store().Scope(scope.Scope()) }

// trainedVariables copies the trainable variables out of the training store, cloning their
// values if asked (the next execution would otherwise overwrite them).
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

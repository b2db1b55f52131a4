package quce

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/vae"
)

// AutoTarget asks for the default target class (see DefaultTarget): the other class of a
// binary model, the most probable class other than the prediction of a multi-class one. It
// is data.ClassIndex's answer when no class is named.
const AutoTarget = data.NoClass

// Query is one instance to explain, with its constraints.
type Query struct {
	X []float64 // the instance, standardised
	// Original is the instance in the data's units as read (nil: X through the scaler).
	// Every output reports an unchanged value as exactly this, and -increase and -decrease
	// hold at it exactly; X must be its standardised form.
	Original []float64
	Target   int // τ: a class index (0 … classes−1) or AutoTarget
	// Frozen marks features that may not change (nil: all may change).
	Frozen []bool
	// Lower and Upper bound each feature in original units. A NaN entry (or nil) sets no
	// bound of the user's: that side is the feature's observed range in the training split
	// (the scaler's Min and Max), widened to the instance's value. −Inf and +Inf remove
	// that side's bound. Every point of the path stays in the box.
	Lower, Upper []float64
}

// NewQuery is a query for x (standardised) with the default target and no constraints but
// the default box, the observed range of the training split (see Query).
func NewQuery(x []float64) Query { return Query{X: x, Target: AutoTarget} }

// Explainer explains a differentiable classifier's decisions with QUCE. It is safe for concurrent
// use; the compiled graphs are shared. It is a facade over the search (see the package's
// Structure): a call takes the models, columns and settings as they are when it begins.
type Explainer struct {
	backend  compute.Backend
	clf      *Classifier
	vae      *vae.VAE
	scaler   *data.Scaler
	features []string

	cols []data.Column // see SetColumns

	mu       sync.Mutex // guards cols
	compiled compiled   // the compiled programs, shared by the calls (see programs)

	// Progress, if set, is called as the search goes with the steps done and the steps to
	// do: after every step on the step engine, after every execution on the loop engine
	// (whose execution walks up to 262 144 row-steps: a batch of a few hundred rows reports
	// once, at its last step). A job walked in units of rows (more than 2048 rows per CPU
	// core) counts the steps of every unit of its first shard.
	Progress func(step, steps int)

	// Shards, if positive, is the most concurrent executions the rows of one call are split
	// into (rows are independent; a shard has at least one row); 0 means one per CPU core
	// (GOMAXPROCS). See backend.Info.Shards and SearchShards. On a backend of several
	// devices there are at least as many shards as devices, and shard k runs on device k mod
	// devices (see job.optimiseSharded).
	Shards int

	// MemoryLimit, if positive, is the most memory in bytes one call may need; 0 means the
	// memory this process has available (AvailableMemory). A call that would need more is
	// refused before it starts, with what it needs and how to shrink it.
	MemoryLimit int64

	// Autodiff, if set before the explainer is first used, takes every gradient with GoMLX's
	// autodiff, also through the built-in networks, whose backward passes are otherwise
	// written out (package backprop). It is slower; the tests use it as the reference.
	Autodiff bool

	// EngineChoice chooses the engine the searches run on (see Engine): EngineAuto (the
	// zero value) the loop wherever it can run, EngineLoop the loop or an error, EngineSteps
	// one execution per step, EngineReplay many steps an execution for batches of up to 100
	// rows and the loop for larger ones. Package pipeline sets EngineReplay on the pure-Go
	// backend, where an execution costs little beyond its operations and the loop's
	// bookkeeping as graph operations costs more (backend.Info.ExecutionsCheap).
	EngineChoice EngineChoice

	// Batching sizes the searches' executions (rows per execution, steps per execution of
	// the loop engine); the zero value is CPUBatching. Package pipeline sets
	// AcceleratorBatching on a GPU. It changes how many executions a call takes, not its
	// results.
	Batching Batching

	// OnCompile, if set, is called after each program is compiled (its name, such as
	// "loop", "step" or "probe", the rows it takes, and the seconds it took), from the
	// goroutine that compiled it. Each program compiles once, at its first execution; on
	// XLA that takes seconds, which a call's first batch of each size pays. See Compiled.
	OnCompile func(program string, rows int, seconds float64)
}

// New makes an explainer for a classifier (see NewClassifier) and a VAE trained on the same
// standardised features; scaler converts to and from original units, and its Min and Max
// (data.FitScaler records them on the training rows) are each feature's default range (see
// Query); features names the columns.
func New(b compute.Backend, clf *Classifier, v *vae.VAE, scaler *data.Scaler, features []string) (*Explainer, error) {
	if b == nil || clf == nil || v == nil || scaler == nil {
		return nil, fmt.Errorf("quce: a backend, a classifier, a VAE and a scaler are all needed")
	}
	j := clf.NumFeatures()
	switch {
	case v.NumFeatures() != j:
		return nil, fmt.Errorf("quce: the model takes %d features and the VAE %d; fix: train the VAE on the model's columns", j, v.NumFeatures())
	case len(scaler.Mean) != j:
		return nil, fmt.Errorf("quce: the scaler has %d features and the models %d; fix: use the scaler fitted with the models", len(scaler.Mean), j)
	case len(features) != j:
		return nil, fmt.Errorf("quce: %d feature names for %d features", len(features), j)
	}
	e := &Explainer{backend: b, clf: clf, vae: v, scaler: scaler, features: features, cols: continuousColumns(features)}
	e.compiled.perDevice = make([]atomic.Int64, max(1, b.NumDevices()))
	return e, nil
}

// programs are the explainer's programs for one call: its models, columns and settings as
// they are now, and the compiled programs.
func (e *Explainer) programs() programs {
	return programs{compiled: &e.compiled, backend: e.backend, clf: e.clf, vae: e.vae,
		cols: e.cols, features: e.features, autodiff: e.Autodiff, batching: e.Batching.resolved(), onCompile: e.OnCompile}
}

// inputs are the explainer's inputs as the data has them (names, columns, scaler), now.
func (e *Explainer) inputs() inputs {
	return inputs{features: e.features, cols: e.cols, scaler: e.scaler}
}

// job is one call's work (see job): the programs, the inputs and the settings as they are now.
func (e *Explainer) job() job {
	var vc *vae.Config
	if e.vae != nil {
		vc = &e.vae.Config
	}
	pr := e.programs()
	shards := maxShards(e.Shards, pr.devices())
	return job{pr: pr, in: e.inputs(), choice: e.EngineChoice, shards: shards, progress: e.Progress,
		memory: memoryModel{inputs: e.NumFeatures(), columns: len(e.cols), vae: vc, shards: shards, unitRows: pr.batching.UnitRows,
			replay: e.EngineChoice == EngineReplay, limit: e.MemoryLimit}}
}

// Classifier returns the model being explained, as the explainer sees it.
func (e *Explainer) Classifier() *Classifier { return e.clf }

// NumClasses is the number of classes of the model being explained.
func (e *Explainer) NumClasses() int { return e.clf.NumClasses() }

// Features returns the feature names.
func (e *Explainer) Features() []string { return e.features }

// Scaler returns the scaler between standardised and original units.
func (e *Explainer) Scaler() *data.Scaler { return e.scaler }

// NumFeatures is J.
func (e *Explainer) NumFeatures() int { return len(e.features) }

// Executions is the number of graph executions this explainer has run since it was made,
// over all its calls: the step engine runs one per optimisation step of each batch, the
// loop engine a few per batch, so the count says how much of a call's time went to
// per-execution overhead (quce bench reports it per phase).
func (e *Explainer) Executions() int64 { return e.compiled.executions.Load() }

// BatchingInUse is the sizes the searches' executions have now: Batching, with the fields
// left at zero taken from CPUBatching.
func (e *Explainer) BatchingInUse() Batching { return e.Batching.resolved() }

// Compiled is how many programs this explainer has compiled since it was made, and the
// seconds compiling took (included in the calls' times; see OnCompile).
func (e *Explainer) Compiled() (programs int64, seconds float64) {
	return e.compiled.compiles.Load(), float64(e.compiled.compileNanos.Load()) / 1e9
}

// ExecutionsPerDevice counts the executions that ran on each device of the backend (one
// entry per device), by the device their outputs are on: the searches of a call run on
// every device when it has enough rows (see Shards); the rest (predictions, uncertainty,
// the walks after the search; the models' training, outside the explainer) on device 0.
func (e *Explainer) ExecutionsPerDevice() []int64 {
	n := make([]int64, len(e.compiled.perDevice))
	for d := range e.compiled.perDevice {
		n[d] = e.compiled.perDevice[d].Load()
	}
	return n
}

// SearchShards is how many shards the last search's rows were split into (see Shards):
// parts searched at the same time, each by executions of its own, so a search's executions
// are its engine's per batch times this. 0 before any search.
func (e *Explainer) SearchShards() int { return int(e.compiled.lastShards.Load()) }

// Engine names the engine the last search ran on: "loop", the whole search of a batch in
// one compiled program (a graph.While over the steps; loop.go), "replay", many steps an
// execution with their bookkeeping replayed on the host (replay.go), or "steps", a host
// loop of one graph execution per optimisation step, which runs where the others cannot (a
// backend without While, sampled codes in L_ε: Config.Samples) or where it is chosen
// (EngineChoice). "" before any search.
func (e *Explainer) Engine() string {
	if p := e.compiled.lastEngine.Load(); p != nil {
		return *p
	}
	return ""
}

// Predict returns the class probabilities F(c|x) [rows][classes] for standardised rows.
func (e *Explainer) Predict(xs [][]float64) ([][]float64, error) {
	qs := make([]Query, len(xs))
	for i, x := range xs {
		qs[i] = NewQuery(x)
	}
	return e.programs().predict(qs)
}

// Uncertainty returns L_ε at standardised points with the mean code, in the trained
// (negative-ELBO) and the paper's form, and the reconstructions dec(μ(x)).
func (e *Explainer) Uncertainty(pts [][]float64) (trained, paper []float64, recon [][]float64, err error) {
	return e.programs().uncertainty(pts)
}

// Explain runs QUCE for every query with the given configuration. Rows (instances × paths,
// and × candidates with cfg.Auto) are optimised together, but no row's result depends on
// another's. With cfg.Sparse the resets follow the search (see Config.Sparse). An instance
// that the model already predicts as its target class is not searched: its explanation
// says so (Explanation.AlreadyTarget). It stops early with ctx's error when ctx is
// cancelled.
func (e *Explainer) Explain(ctx context.Context, cfg Config, queries []Query) ([]*Explanation, error) {
	ex, _, err := e.ExplainTimed(ctx, cfg, queries)
	return ex, err
}

// Timings are the wall seconds of Explain's phases.
type Timings struct {
	// Optimisation is the n steps. The path attribution is integrated inside the same
	// executions (F, ∇F and L_ε at every point, plus the rule's interior points), so its
	// cost is part of this; compare rules to see it.
	Optimisation float64 `json:"optimisation"`
	Uncertainty  float64 `json:"uncertainty"` // ε and the ± integrals
	// Paths is building each path's results on the host once the integrals are done: its
	// kept points in the data's units, its completeness and validity checks. On a GPU it is
	// the part of a call that the device does not run.
	Paths float64 `json:"paths"`
}

// ExplainTimed is Explain, also returning how long each phase took.
func (e *Explainer) ExplainTimed(ctx context.Context, cfg Config, queries []Query) ([]*Explanation, Timings, error) {
	return e.job().explain(ctx, cfg, queries)
}

// ExplainPaths measures given paths instead of optimising: paths[i] is a path for
// queries[i] that must start at its x and stay inside its box (standardised points; see
// Box). The attribution, ± uncertainty,
// completeness gap and uncertainties are computed exactly as for QUCE's own paths, so
// baselines (straight-line IG, AGI) are measured with the same machinery. cfg.Paths is
// ignored (one path per query).
func (e *Explainer) ExplainPaths(ctx context.Context, cfg Config, queries []Query, paths [][][]float64) ([]*Explanation, error) {
	return e.job().explainPaths(ctx, cfg, queries, paths)
}

// Bounds are a query's room to move, per model input, as the search has it (see
// Explainer.Box).
type Bounds struct {
	Move []bool // false where the input is frozen
	// Lower and Upper are the box in the data's units, exact (±Inf where open): the
	// query's bounds, else the observed range of the training split widened to the
	// instance's value (see Query).
	Lower, Upper []float64
	// LowerStd and UpperStd are the box standardised, as the search clamps its points
	// (float32 values, rounded inwards so that no point inside crosses a bound).
	LowerStd, UpperStd []float64
	// Original is the instance in the data's units (Query.Original, or X through the scaler).
	Original []float64
}

// Box returns the room the query q has to move, as the search sees it. Baselines use it to
// keep the same constraints as QUCE.
func (e *Explainer) Box(q Query) (Bounds, error) {
	return e.inputs().queryBounds(q)
}

// Legalize returns the legal row nearest to the standardised point pt for the query q, as
// the explainer's search ends (see SetColumns): frozen columns at the instance's values, a
// categorical column at its largest input's category inside q's box, binary, integer and
// ordinal columns at their nearest legal value inside q's box. Continuous inputs are left
// as they are. Without discrete columns it returns pt unchanged.
func (e *Explainer) Legalize(q Query, pt []float64) ([]float64, error) {
	return e.inputs().legalRow(q, pt)
}

// DataUnits returns the standardised point pt of the query q in the data's units, exactly
// as the explainer reports its own points (see Path.PointsOriginal): an input whose float32
// value is the instance's is the instance's value, a discrete column at one of its legal
// values is that value, and every value lies inside q's box. Baselines use it for their
// counterfactuals.
func (e *Explainer) DataUnits(q Query, pt []float64) ([]float64, error) {
	return e.inputs().pointInDataUnits(q, pt)
}

// Objective returns G(x_c) and its gradient for one instance (the query's x and target;
// AutoTarget is resolved as in Explain). It exists so the gradient can be checked.
func (e *Explainer) Objective(cfg Config, q Query, xc []float64) (float64, []float64, error) {
	return e.job().objective(cfg, q, xc)
}

func finite(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }

func allFinite(v []float32) bool {
	for _, x := range v {
		if !finite(x) {
			return false
		}
	}
	return true
}

func toF32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func toF64(v []float32) []float64 { return toF64Into(make([]float64, len(v)), v) }

// toF64Into writes v into out (of v's length) and returns it.
func toF64Into(out []float64, v []float32) []float64 {
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

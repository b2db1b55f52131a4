package quce

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/backend"
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

// Explainer explains a differentiable classifier's decisions with QUCE. It is made once, with
// its models, columns and settings (New), and nothing in it changes after, so it is safe for
// concurrent use; the compiled graphs are shared by its calls. It is a facade over the search
// (see the package's Structure). Each call counts its own work (Stats).
type Explainer struct {
	backend  compute.Backend
	clf      *Classifier
	vae      *vae.VAE
	scaler   *data.Scaler
	features []string
	settings Settings  // resolved (see Settings.resolve); cols are settings.Columns
	compiled *compiled // the compiled programs, shared by the calls (and by With's explainers of the same columns and gradients)
}

// New makes an explainer for a classifier (see NewClassifier) and a VAE trained on the same
// standardised features; scaler converts to and from original units, and its Min and Max
// (data.FitScaler records them on the training rows) are each feature's default range (see
// Query); features names the inputs; settings say how it runs (the zero value: as suits the
// backend).
func New(b compute.Backend, clf *Classifier, v *vae.VAE, scaler *data.Scaler, features []string, settings Settings) (*Explainer, error) {
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
	e := &Explainer{backend: b, clf: clf, vae: v, scaler: scaler, features: features}
	return e.with(settings, nil)
}

// With is an explainer of the same models with other settings (see Settings; nil Columns
// keep e's). It shares e's compiled programs unless its columns or its way of taking
// gradients (Autodiff) differ, which the programs are built for. e is unchanged.
func (e *Explainer) With(settings Settings) (*Explainer, error) {
	if settings.Columns == nil {
		settings.Columns = e.settings.Columns
	}
	shared := e.compiled
	if settings.Autodiff != e.settings.Autodiff || !slices.EqualFunc(settings.Columns, e.settings.Columns, sameColumn) {
		shared = nil
	}
	return e.with(settings, shared)
}

// with is a copy of e with settings, sharing the compiled programs c (nil: none yet).
func (e *Explainer) with(settings Settings, c *compiled) (*Explainer, error) {
	if settings.Columns != nil {
		if err := checkColumns(settings.Columns, len(e.features)); err != nil {
			return nil, err
		}
	}
	if c == nil {
		c = new(compiled)
	}
	out := *e
	out.settings, out.compiled = settings.resolve(backend.Of(e.backend), e.features), c
	return &out, nil
}

// Settings are the explainer's settings as resolved for its backend: every zero value of
// those it was given replaced by the choice made for it (see Settings).
func (e *Explainer) Settings() Settings {
	s := e.settings
	s.Columns = slices.Clone(s.Columns)
	return s
}

// programs are the explainer's programs for one call, with the call's own counts: its models,
// columns and settings, and the compiled programs.
func (e *Explainer) programs() programs {
	s := e.settings
	return programs{compiled: e.compiled, stats: newCallStats(e.backend.NumDevices()), backend: e.backend, clf: e.clf, vae: e.vae,
		cols: s.Columns, features: e.features, autodiff: s.Autodiff, batching: s.Batching, onCompile: s.OnCompile}
}

// inputs are the explainer's inputs as the data has them (names, columns, scaler).
func (e *Explainer) inputs() inputs {
	return inputs{features: e.features, cols: e.settings.Columns, scaler: e.scaler, seen: e.settings.SeenCategories}
}

// job is one call's work (see job): the programs, the inputs and the settings, with the
// call's own counts.
func (e *Explainer) job() job {
	var vc *vae.Config
	if e.vae != nil {
		vc = &e.vae.Config
	}
	s := e.settings
	pr := e.programs()
	shards := maxShards(s.Shards, pr.devices())
	return job{pr: pr, in: e.inputs(), choice: s.Engine, shards: shards, progress: s.Progress,
		memory: memoryModel{inputs: e.NumFeatures(), columns: len(s.Columns), vae: vc, shards: shards, unitRows: pr.batching.UnitRows,
			replay: s.Engine == EngineReplay, limit: s.MemoryLimit}}
}

// Classifier returns the model being explained, as the explainer sees it.
func (e *Explainer) Classifier() *Classifier { return e.clf }

// Features names the inputs.
func (e *Explainer) Features() []string { return e.features }

// Scaler is the standardisation of the inputs.
func (e *Explainer) Scaler() *data.Scaler { return e.scaler }

// NumFeatures is J.
func (e *Explainer) NumFeatures() int { return len(e.features) }

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

// JobSize is how large Explain of instances under cfg would be, before it runs: so that a
// program can say so before a large job starts (its pace, and so its time, is only known
// once it runs). The instances are at most those searched, and with automatic λ refining
// searches of fewer rows follow.
func (e *Explainer) JobSize(cfg Config, instances int) JobSize {
	return e.job().memory.size(cfg, instances)
}

// Explain runs QUCE for every query with the given configuration. Rows (instances × paths,
// and × candidates with cfg.Auto) are optimised together, but no row's result depends on
// another's. With cfg.Sparse the resets follow the search (see Config.Sparse). An instance
// that the model already predicts as its target class is not searched: its explanation
// says so (Explanation.AlreadyTarget). It stops early with ctx's error when ctx is
// cancelled.
func (e *Explainer) Explain(ctx context.Context, cfg Config, queries []Query) ([]*Explanation, error) {
	ex, _, err := e.ExplainWithStats(ctx, cfg, queries)
	return ex, err
}

// Timings are the wall seconds of a call's phases (see Stats).
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

// ExplainWithStats is Explain, also returning what the call ran: how long each phase took,
// its engine, shards, executions and compilations.
func (e *Explainer) ExplainWithStats(ctx context.Context, cfg Config, queries []Query) ([]*Explanation, Stats, error) {
	jb := e.job()
	ex, tm, err := jb.explain(ctx, cfg, queries)
	return ex, jb.pr.stats.stats(tm), err
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
// the explainer's search ends (see Settings.Columns): frozen columns at the instance's values, a
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

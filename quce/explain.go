package quce

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

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
// use; the compiled graphs are shared.
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

	// SmallBatch, if set, runs the step executions of at most smallBatchRows (8) rows. The
	// pure-Go backend with sequential ops (see backend.ForSmallBatches) is several times
	// faster there, which is what makes a notebook's sliders feel live.
	SmallBatch compute.Backend

	// Shards, if positive, is the most concurrent executions the rows of one call are split
	// into (rows are independent); 0 means one per CPU core (GOMAXPROCS). See
	// backend.Info.Shards.
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
	// one execution per step. Package pipeline sets EngineSteps on the pure-Go backend, where
	// the step engine is the faster (backend.Info.ExecutionsCheap).
	EngineChoice EngineChoice
}

// New makes an explainer for a classifier (see NewClassifier) and a VAE trained on the same
// standardised features; scaler converts to and from original units, and its Min and Max
// (data.FitScaler records them on the training rows) are each feature's default range (see
// Query); features names the columns.
func New(b compute.Backend, clf *Classifier, v *vae.VAE, scaler *data.Scaler, features []string) (*Explainer, error) {
	if clf == nil || v == nil || scaler == nil {
		return nil, fmt.Errorf("quce: a classifier, a VAE and a scaler are all needed")
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
	return &Explainer{backend: b, clf: clf, vae: v, scaler: scaler, features: features, cols: continuousColumns(features)}, nil
}

// programs are the explainer's programs for one call: its models, columns and settings as
// they are now, and the compiled programs.
func (e *Explainer) programs() programs {
	return programs{compiled: &e.compiled, backend: e.backend, smallBatch: e.SmallBatch, clf: e.clf, vae: e.vae,
		cols: e.cols, features: e.features, autodiff: e.Autodiff}
}

// inputs are the explainer's inputs as the data has them (names, columns, scaler), now.
func (e *Explainer) inputs() inputs {
	return inputs{features: e.features, cols: e.cols, scaler: e.scaler}
}

// memory is what a job's memory depends on besides its Config and size (see memoryModel).
func (e *Explainer) memory() memoryModel {
	return memoryModel{inputs: e.NumFeatures(), columns: len(e.cols), vae: &e.vae.Config, shards: e.Shards, limit: e.MemoryLimit}
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

// Engine names the engine the last search ran on: "loop", the whole search of a batch in
// one compiled program (a graph.While over the steps; loop.go), or "steps", a host loop of
// one graph execution per optimisation step, which runs where the loop cannot (a backend
// without While, sampled codes in L_ε: Config.Samples) or where it is chosen
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
	return e.predict(qs)
}

// Uncertainty returns L_ε at standardised points with the mean code, in the trained
// (negative-ELBO) and the paper's form, and the reconstructions dec(μ(x)).
func (e *Explainer) Uncertainty(pts [][]float64) (trained, paper []float64, recon [][]float64, err error) {
	f := make([][]float32, len(pts))
	for i, p := range pts {
		if len(p) != e.NumFeatures() {
			return nil, nil, nil, fmt.Errorf("quce: point %d has %d features, want %d", i, len(p), e.NumFeatures())
		}
		f[i] = toF32(p)
	}
	u, up, r, err := e.programs().pointsMany(f)
	if err != nil {
		return nil, nil, nil, err
	}
	recon = make([][]float64, len(r))
	for i := range r {
		recon[i] = toF64(r[i])
	}
	return toF64(u), toF64(up), recon, nil
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
}

// ExplainTimed is Explain, also returning how long each phase took.
func (e *Explainer) ExplainTimed(ctx context.Context, cfg Config, queries []Query) ([]*Explanation, Timings, error) {
	var tm Timings
	if err := cfg.Validate(); err != nil {
		return nil, tm, err
	}
	if cfg.needsBound() && cfg.Plausibility == 0 {
		return nil, tm, &FieldError{Field: "plausibility", Value: 0.0, Fix: fmt.Sprintf(
			"take it from the training rows at the %g quantile first: Explainer.WithBound (pipeline: Setup.WithPlausibility)", cfg.PlausibilityQuantile)}
	}
	if err := ctx.Err(); err != nil {
		return nil, tm, err
	}
	if len(queries) == 0 {
		return nil, tm, fmt.Errorf("quce: no instances to explain")
	}
	pred, err := e.predict(queries)
	if err != nil {
		return nil, tm, err
	}
	// An instance that the model already puts in its target class has nothing to change:
	// it is not searched (the search would only make the model surer, moving every feature).
	targets := make([]int, len(queries))
	var search []int // the queries to search
	for qi, q := range queries {
		if targets[qi], err = e.target(cfg, qi, q, pred[qi]); err != nil {
			return nil, tm, err
		}
		if _, err := e.inputs().box(qi, q); err != nil {
			return nil, tm, err
		}
		if targets[qi] != PredictedClass(pred[qi], cfg.Threshold) {
			search = append(search, qi)
		}
	}
	out := make([]*Explanation, len(queries))
	if len(search) < len(queries) {
		if err := alreadyTargets(cfg, e.programs(), e.inputs(), queries, pred, targets, out); err != nil {
			return nil, tm, err
		}
	}
	if len(search) == 0 {
		return out, tm, nil
	}
	sub, subPred := make([]Query, len(search)), make([][]float64, len(search))
	for k, qi := range search {
		sub[k], subPred[k] = queries[qi], pred[qi]
	}
	ex, err := e.search(ctx, cfg, sub, subPred, &tm)
	if err != nil {
		return nil, tm, err
	}
	for k, qi := range search {
		out[qi] = ex[k]
	}
	return out, tm, nil
}

// search runs the QUCE search for queries whose target is not their predicted class, with
// their class probabilities pred, and assembles the results.
func (e *Explainer) search(ctx context.Context, cfg Config, queries []Query, pred [][]float64, tm *Timings) ([]*Explanation, error) {
	// With automatic λ every instance is searched once per candidate, as consecutive rows
	// of the batch; refine then searches more candidates and keeps one per instance.
	grid := []Lambdas{{cfg.Lambda2, cfg.Lambda3}}
	n := cfg.Steps
	if cfg.Auto != nil {
		grid = cfg.Auto.Grid
		cfg.Steps = autoSteps(cfg)
	}
	cands := make([]Query, 0, len(queries)*len(grid))
	candPred := make([][]float64, 0, cap(cands))
	lams := make([]Lambdas, 0, cap(cands))
	for qi, q := range queries {
		for _, l := range grid {
			cands, candPred, lams = append(cands, q), append(candPred, pred[qi]), append(lams, l)
		}
	}
	if err := e.memory().check(cfg, len(queries), len(grid)); err != nil {
		return nil, err
	}
	ex, err := e.searchRows(ctx, cfg, cands, candPred, lams, tm)
	if err != nil || cfg.Auto == nil {
		return ex, err
	}
	return e.refine(ctx, cfg, n, queries, pred, ex, tm)
}

// searchRows searches each query with its own λ2 and λ3 (lams[i] for queries[i]) and
// assembles the results.
func (e *Explainer) searchRows(ctx context.Context, cfg Config, queries []Query, pred [][]float64, lams []Lambdas, tm *Timings) ([]*Explanation, error) {
	rows, err := e.makeRows(ctx, cfg, queries, pred)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		l := lams[r.query]
		r.lam[1], r.lam[2] = float32(l.Lambda2), float32(l.Lambda3)
	}
	t0 := time.Now()
	if err := e.optimiseSharded(ctx, cfg, rows); err != nil {
		return nil, err
	}
	endSearch(rows)
	if err := project(ctx, cfg, e.programs(), e.inputs(), rows); err != nil {
		return nil, err
	}
	if cfg.Sparse {
		if err := sparsify(ctx, cfg, e.programs(), e.cols, rows); err != nil {
			return nil, err
		}
	}
	if cfg.Auto != nil && cfg.Auto.PullBack {
		if err := pullBack(ctx, cfg, e.programs(), e.inputs(), rows); err != nil {
			return nil, err
		}
	}
	tm.Optimisation += time.Since(t0).Seconds()
	return assemble(ctx, cfg, e.programs(), e.inputs(), queries, pred, rows, tm, lrFix(cfg))
}

// ExplainPaths measures given paths instead of optimising: paths[i] is a path for
// queries[i] that must start at its x and stay inside its box (standardised points; see
// Box). The attribution, ± uncertainty,
// completeness gap and uncertainties are computed exactly as for QUCE's own paths, so
// baselines (straight-line IG, AGI) are measured with the same machinery. cfg.Paths is
// ignored (one path per query).
func (e *Explainer) ExplainPaths(ctx context.Context, cfg Config, queries []Query, paths [][][]float64) ([]*Explanation, error) {
	cfg.Paths = 1
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(queries) == 0 || len(paths) != len(queries) {
		return nil, fmt.Errorf("quce: %d paths for %d instances; fix: pass one path per instance", len(paths), len(queries))
	}
	pred, err := e.predict(queries)
	if err != nil {
		return nil, err
	}
	longest := 0
	for _, p := range paths {
		longest = max(longest, len(p))
	}
	if err := e.memory().check(Config{PathPoints: cfg.PathPoints, Steps: max(1, longest-1), Paths: 1, K: cfg.K}, len(queries), 1); err != nil {
		return nil, err
	}
	rows, err := e.makeRows(ctx, cfg, queries, pred)
	if err != nil {
		return nil, err
	}
	given := make([][][]float32, len(rows))
	for i, r := range rows {
		pts := paths[i]
		if len(pts) == 0 {
			return nil, fmt.Errorf("quce: path %d is empty; fix: start it at the instance", i)
		}
		for k, pt := range pts {
			if len(pt) != e.NumFeatures() || !allFinite(toF32(pt)) {
				return nil, fmt.Errorf("quce: path %d, point %d: want %d finite values; fix: pass standardised rows", i, k, e.NumFeatures())
			}
			given[i] = append(given[i], toF32(pt))
		}
		for f, v := range given[i][0] {
			if v != r.x0[f] {
				return nil, fmt.Errorf("quce: path %d does not start at its instance (feature %q: %v vs %v); fix: make the first point x", i, e.features[f], v, r.x0[f])
			}
		}
		// A point outside the box (beyond float32 rounding) would be measured where the
		// outputs, which hold every bound exactly (see dataUnits), could not report it.
		for k, pt := range given[i] {
			for f, v := range pt {
				if r.move[f] == 0 && v != r.x0[f] || v < r.lo[f] && !e.inputs().near(f, v, r.olo[f]) || v > r.hi[f] && !e.inputs().near(f, v, r.ohi[f]) {
					return nil, fmt.Errorf("quce: path %d, point %d: feature %q is %v, outside its box [%v, %v] (standardised; frozen: %v); fix: keep the path inside the query's box (Explainer.Box), or widen it with Query.Lower and Upper (±Inf removes a bound)", i, k, e.features[f], v, r.lo[f], r.hi[f], r.move[f] == 0)
				}
			}
		}
	}
	if err := measurePaths(ctx, cfg, e.programs(), rows, given); err != nil {
		return nil, err
	}
	endSearch(rows)
	return assemble(ctx, cfg, e.programs(), e.inputs(), queries, pred, rows, &Timings{}, "fix: give the path more points, closer together")
}

// predict returns the class probabilities of each query, checking the queries' shapes and
// values.
func (e *Explainer) predict(queries []Query) ([][]float64, error) {
	j := e.NumFeatures()
	xs := make([][]float32, len(queries))
	for i, q := range queries {
		if len(q.X) != j {
			return nil, fmt.Errorf("quce: instance %d has %d features, the models have %d; fix: pass rows with the models' columns", i, len(q.X), j)
		}
		for f, v := range q.X {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("quce: instance %d, feature %q is %v; fix: pass finite values", i, e.features[f], v)
			}
		}
		xs[i] = toF32(q.X)
	}
	return e.programs().classProbs(context.Background(), xs)
}

func (e *Explainer) makeRows(ctx context.Context, cfg Config, queries []Query, pred [][]float64) ([]*row, error) {
	j, classes := e.NumFeatures(), e.clf.NumClasses()
	rows := make([]*row, 0, len(queries)*cfg.Paths)
	for qi, q := range queries {
		target, err := e.target(cfg, qi, q, pred[qi])
		if err != nil {
			return nil, err
		}
		onehot := make([]float32, classes)
		onehot[target] = 1
		box, err := e.inputs().box(qi, q)
		if err != nil {
			return nil, err
		}
		x0, lo, hi, move := box.x0, box.lo, box.hi, box.move
		h := fnv.New64a()
		for _, v := range q.X {
			b := math.Float64bits(v)
			h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(b >> 32), byte(b >> 40), byte(b >> 48), byte(b >> 56)})
		}
		for p := 0; p < cfg.Paths; p++ {
			if err := every(ctx, p); err != nil {
				return nil, err
			}
			r := &row{
				query: qi, path: p, queryBox: box, target: target, onehot: onehot, active: true,
				lam: [3]float32{float32(cfg.Lambda1), float32(cfg.Lambda2), float32(cfg.Lambda3)},
				// Keyed by the instance's values, not its position, so a row gets the same
				// random numbers alone or inside any batch.
				rng: rand.New(rand.NewPCG(cfg.Seed^h.Sum64(), uint64(p))),
			}
			r.cur = x0
			if p > 0 && cfg.StartNoise > 0 {
				r.cur = make([]float32, j)
				for f := range r.cur {
					r.cur[f] = x0[f] + move[f]*float32(cfg.StartNoise*r.rng.NormFloat64())
					r.cur[f] = min(max(r.cur[f], lo[f]), hi[f])
				}
				r.offset = true
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// target is query qi's target class τ: its own, or the default for its class probabilities
// probs.
func (e *Explainer) target(cfg Config, qi int, q Query, probs []float64) (int, error) {
	switch classes := e.clf.NumClasses(); {
	case q.Target == AutoTarget:
		return DefaultTarget(probs, cfg.Threshold), nil
	case q.Target < 0 || q.Target >= classes:
		return 0, fmt.Errorf("quce: instance %d: target class %d; fix: use a class index from 0 to %d, or AutoTarget (-1)", qi, q.Target, classes-1)
	}
	return q.Target, nil
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
	b, err := e.inputs().box(0, q)
	if err != nil {
		return Bounds{}, err
	}
	move := make([]bool, len(b.move))
	for f, m := range b.move {
		move[f] = m == 1
	}
	return Bounds{Move: move, Lower: slices.Clone(b.olo), Upper: slices.Clone(b.ohi),
		LowerStd: toF64(b.lo), UpperStd: toF64(b.hi), Original: slices.Clone(b.x0orig)}, nil
}

// Legalize returns the legal row nearest to the standardised point pt for the query q, as
// the explainer's search ends (see SetColumns): frozen columns at the instance's values, a
// categorical column at its largest input's category inside q's box, binary, integer and
// ordinal columns at their nearest legal value inside q's box. Continuous inputs are left
// as they are. Without discrete columns it returns pt unchanged.
func (e *Explainer) Legalize(q Query, pt []float64) ([]float64, error) {
	if !e.inputs().hasDiscrete() {
		return pt, nil
	}
	b, err := e.inputs().box(0, q)
	if err != nil {
		return nil, err
	}
	if len(pt) != e.NumFeatures() {
		return nil, fmt.Errorf("quce: the point has %d values, the models %d inputs", len(pt), e.NumFeatures())
	}
	return toF64(e.inputs().legalize(&b, toF32(pt))), nil
}

// DataUnits returns the standardised point pt of the query q in the data's units, exactly
// as the explainer reports its own points (see Path.PointsOriginal): an input whose float32
// value is the instance's is the instance's value, a discrete column at one of its legal
// values is that value, and every value lies inside q's box. Baselines use it for their
// counterfactuals.
func (e *Explainer) DataUnits(q Query, pt []float64) ([]float64, error) {
	b, err := e.inputs().box(0, q)
	if err != nil {
		return nil, err
	}
	if len(pt) != e.NumFeatures() {
		return nil, fmt.Errorf("quce: the point has %d values, the models %d inputs", len(pt), e.NumFeatures())
	}
	return e.inputs().dataUnits(&b, toF32(pt)), nil
}

// AutoTarget is resolved as in Explain). It exists so the gradient can be checked.
func (e *Explainer) Objective(cfg Config, q Query, xc []float64) (float64, []float64, error) {
	pred, err := e.predict([]Query{q})
	if err != nil {
		return 0, nil, err
	}
	rows, err := e.makeRows(context.Background(), Config{Paths: 1, Threshold: cfg.Threshold, Seed: cfg.Seed}, []Query{q}, pred)
	if err != nil {
		return 0, nil, err
	}
	return e.programs().objective(toF32(xc), rows[0].x0, rows[0].onehot,
		[]float32{float32(cfg.Lambda1), float32(cfg.Lambda2), float32(cfg.Lambda3)})
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

func toF64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

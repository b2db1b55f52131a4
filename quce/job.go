package quce

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gomlx/compute"
)

// job is one call of an Explainer: the programs it runs (programs), the inputs' names,
// columns and scaler (inputs), and the explainer's settings as they were when the call
// began. The search and what follows it are its methods and the functions they call (the
// engines, projection, sparsity, pull-back, the results); Explainer makes one per call
// (Explainer.job) and delegates to it.
type job struct {
	pr       programs
	in       inputs
	memory   memoryModel
	choice   EngineChoice          // Settings.Engine
	shards   int                   // the most shards a call's rows are split into (see maxShards)
	progress func(step, steps int) // Settings.Progress
}

// explain is Explainer.ExplainWithStats.
func (jb job) explain(ctx context.Context, cfg Config, queries []Query) ([]*Explanation, Timings, error) {
	var tm Timings
	if err := cfg.Validate(); err != nil {
		return nil, tm, err
	}
	if cfg.needsBound() && cfg.Plausibility == 0 {
		return nil, tm, &FieldError{Field: "Config.Plausibility", Value: 0.0, Fix: fmt.Sprintf(
			"take it from the training rows at the %g quantile first: Explainer.WithBound (pipeline: Setup.WithPlausibility)", cfg.PlausibilityQuantile)}
	}
	if err := ctx.Err(); err != nil {
		return nil, tm, err
	}
	if len(queries) == 0 {
		return nil, tm, fmt.Errorf("quce: no instances to explain")
	}
	pred, err := jb.pr.predict(queries)
	if err != nil {
		return nil, tm, err
	}
	// An instance that the model already puts in its target class has nothing to change:
	// it is not searched (the search would only make the model surer, moving every feature).
	targets := make([]int, len(queries))
	var search []int // the queries to search
	for qi, q := range queries {
		if targets[qi], err = target(cfg, jb.pr.clf.NumClasses(), qi, q, pred[qi]); err != nil {
			return nil, tm, err
		}
		if _, err := jb.in.box(qi, q); err != nil {
			return nil, tm, err
		}
		if targets[qi] != PredictedClass(pred[qi], cfg.Threshold) {
			search = append(search, qi)
		}
	}
	out := make([]*Explanation, len(queries))
	if len(search) < len(queries) {
		if err := alreadyTargets(cfg, jb.pr, jb.in, queries, pred, targets, out); err != nil {
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
	ex, err := jb.search(ctx, cfg, sub, subPred, &tm)
	if err != nil {
		return nil, tm, err
	}
	for k, qi := range search {
		out[qi] = ex[k]
	}
	if cfg.Counterfactuals > 1 {
		if err := jb.alternatives(ctx, cfg, queries, out, &tm); err != nil {
			return nil, tm, err
		}
	}
	return out, tm, nil
}

// search runs the QUCE search for queries whose target is not their predicted class, with
// their class probabilities pred, and assembles the results.
func (jb job) search(ctx context.Context, cfg Config, queries []Query, pred [][]float64, tm *Timings) ([]*Explanation, error) {
	grids := make([][]Lambdas, len(queries))
	for i := range grids {
		grids[i] = cfg.lambdas()
	}
	return jb.searchGrids(ctx, cfg, queries, pred, grids, tm)
}

// lambdas are the (λ2, λ3) an instance is searched with: automatic λ's grid, or cfg's own.
func (cfg Config) lambdas() []Lambdas {
	if cfg.Auto != nil {
		return cfg.Auto.Grid
	}
	return []Lambdas{{cfg.Lambda2, cfg.Lambda3}}
}

// searchGrids is search with the (λ2, λ3) given per query: grids[i] for queries[i], all of
// one length (one without automatic λ).
func (jb job) searchGrids(ctx context.Context, cfg Config, queries []Query, pred [][]float64, grids [][]Lambdas, tm *Timings) ([]*Explanation, error) {
	// With automatic λ every instance is searched once per candidate, as consecutive rows
	// of the batch; refine then searches more candidates and keeps one per instance.
	n, g := cfg.Steps, len(grids[0])
	if cfg.Auto != nil {
		cfg.Steps = autoSteps(cfg)
	}
	cands := make([]Query, 0, len(queries)*g)
	candPred := make([][]float64, 0, cap(cands))
	lams := make([]Lambdas, 0, cap(cands))
	for qi, q := range queries {
		for _, l := range grids[qi] {
			cands, candPred, lams = append(cands, q), append(candPred, pred[qi]), append(lams, l)
		}
	}
	if err := jb.memory.check(cfg, len(queries), g); err != nil {
		return nil, err
	}
	ex, err := jb.searchRows(ctx, cfg, cands, candPred, lams, tm)
	if err != nil || cfg.Auto == nil {
		return ex, err
	}
	return jb.refine(ctx, cfg, n, queries, pred, grids, ex, tm)
}

// searchRows searches each query with its own λ2 and λ3 (lams[i] for queries[i]) and
// assembles the results.
func (jb job) searchRows(ctx context.Context, cfg Config, queries []Query, pred [][]float64, lams []Lambdas, tm *Timings) ([]*Explanation, error) {
	rows, err := jb.makeRows(ctx, cfg, queries, pred)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		l := lams[r.query]
		r.lam[1], r.lam[2] = float32(l.Lambda2), float32(l.Lambda3)
	}
	t0 := time.Now()
	if err := jb.optimiseSharded(ctx, cfg, rows); err != nil {
		return nil, err
	}
	endSearch(rows)
	if err := project(ctx, cfg, jb.pr, jb.in, rows); err != nil {
		return nil, err
	}
	if cfg.Sparse {
		if err := sparsify(ctx, cfg, jb.pr, jb.in, rows); err != nil {
			return nil, err
		}
	}
	if cfg.Auto != nil && cfg.Auto.PullBack {
		if err := pullBack(ctx, cfg, jb.pr, jb.in, rows); err != nil {
			return nil, err
		}
	}
	tm.Optimisation += time.Since(t0).Seconds()
	return jb.assemble(ctx, cfg, queries, pred, rows, tm, lrFix(cfg))
}

// explainPaths is Explainer.ExplainPaths.
func (jb job) explainPaths(ctx context.Context, cfg Config, queries []Query, paths [][][]float64) ([]*Explanation, error) {
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
	pred, err := jb.pr.predict(queries)
	if err != nil {
		return nil, err
	}
	longest := 0
	for _, p := range paths {
		longest = max(longest, len(p))
	}
	if err := jb.memory.check(Config{PathPoints: cfg.PathPoints, Steps: max(1, longest-1), Paths: 1, K: cfg.K}, len(queries), 1); err != nil {
		return nil, err
	}
	rows, err := jb.makeRows(ctx, cfg, queries, pred)
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
			if len(pt) != jb.pr.numFeatures() || !allFinite(toF32(pt)) {
				return nil, fmt.Errorf("quce: path %d, point %d: want %d finite values; fix: pass standardised rows", i, k, jb.pr.numFeatures())
			}
			given[i] = append(given[i], toF32(pt))
		}
		for f, v := range given[i][0] {
			if v != r.x0[f] {
				return nil, fmt.Errorf("quce: path %d does not start at its instance (feature %q: %v vs %v); fix: make the first point x", i, jb.in.features[f], v, r.x0[f])
			}
		}
		// A point outside the box (beyond float32 rounding) would be measured where the
		// outputs, which hold every bound exactly (see dataUnits), could not report it.
		for k, pt := range given[i] {
			for f, v := range pt {
				if r.move[f] == 0 && v != r.x0[f] || v < r.lo[f] && !jb.in.near(f, v, r.olo[f]) || v > r.hi[f] && !jb.in.near(f, v, r.ohi[f]) {
					return nil, fmt.Errorf("quce: path %d, point %d: feature %q is %v, outside its box [%v, %v] (standardised; frozen: %v); fix: keep the path inside the query's box (Explainer.Box), or widen it with Query.Lower and Upper (±Inf removes a bound)", i, k, jb.in.features[f], v, r.lo[f], r.hi[f], r.move[f] == 0)
				}
			}
		}
	}
	// The rows are independent, so they are measured in shards at the same time, as
	// searches are (job.eachShard).
	if _, err := jb.eachShard(ctx, len(rows), func(_, lo, hi int, dev compute.DeviceNum) error {
		return measurePaths(ctx, cfg, jb.pr, rows[lo:hi], given[lo:hi], dev)
	}); err != nil {
		return nil, err
	}
	endSearch(rows)
	return jb.assemble(ctx, cfg, queries, pred, rows, &Timings{}, "fix: give the path more points, closer together")
}

// makeRows makes the rows of the queries' searches, cfg.Paths per query (pred are their
// class probabilities): each with its box, target and random numbers, starting at x or, on
// the paths after the first, at a seeded start near it (Config.StartNoise).
func (jb job) makeRows(ctx context.Context, cfg Config, queries []Query, pred [][]float64) ([]*row, error) {
	j, classes := jb.pr.numFeatures(), jb.pr.clf.NumClasses()
	rows := make([]*row, 0, len(queries)*cfg.Paths)
	for qi, q := range queries {
		tau, err := target(cfg, classes, qi, q, pred[qi])
		if err != nil {
			return nil, err
		}
		onehot := make([]float32, classes)
		onehot[tau] = 1
		box, err := jb.in.box(qi, q)
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
				query: qi, path: p, queryBox: box, target: tau, onehot: onehot, active: true,
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
// probs, for a model of classes classes.
func target(cfg Config, classes, qi int, q Query, probs []float64) (int, error) {
	switch {
	case q.Target == AutoTarget:
		return DefaultTarget(probs, cfg.Threshold), nil
	case q.Target < 0 || q.Target >= classes:
		return 0, fmt.Errorf("quce: instance %d: target class %d; fix: use a class index from 0 to %d, or AutoTarget (-1)", qi, q.Target, classes-1)
	}
	return q.Target, nil
}

// objective is Explainer.Objective.
func (jb job) objective(cfg Config, q Query, xc []float64) (float64, []float64, error) {
	pred, err := jb.pr.predict([]Query{q})
	if err != nil {
		return 0, nil, err
	}
	rows, err := jb.makeRows(context.Background(), Config{Paths: 1, Threshold: cfg.Threshold, Seed: cfg.Seed}, []Query{q}, pred)
	if err != nil {
		return 0, nil, err
	}
	return jb.pr.objective(toF32(xc), rows[0].x0, rows[0].onehot,
		[]float32{float32(cfg.Lambda1), float32(cfg.Lambda2), float32(cfg.Lambda3)})
}

package quce

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// row is the working state of one path of one instance. The path is walked one segment
// at a time: each execution evaluates F(τ|·), its gradient and L_ε at the current point and
// the rule's interior gradients on the segment that ends there, so the attribution and the
// path metrics are accumulated as the path grows; only PathPoints points are stored.
type row struct {
	query int // index into the queries
	path  int // index among the instance's paths
	queryBox
	target int        // τ
	onehot []float32  // τ as a one-hot row
	lam    [3]float32 // λ1, λ2, λ3 of this row's search
	rng    *rand.Rand
	offset bool // the path jumps from x to a seeded start before optimising
	given  bool // the path is given (ExplainPaths), not searched

	prev, cur   []float32 // the segment being walked
	prevGrad    []float32 // ∇F(τ|prev)
	curRecorded bool      // cur is already a point of the path
	active      bool
	validRun    int
	failure     string

	phi              []float64 // path attribution so far
	n                int       // points so far
	sumUnc, sumPaper float64   // Σ L_ε over the points (both forms)
	kept             keptPoints
	last             pointStats
	searched         int          // points when the search ended (before projection and resets)
	relaxedProb      float32      // F(τ|·) where the search ended, before projection
	projected        bool         // the search's end was moved to the nearest legal row
	repairs          []int        // columns changed by repair moves after projection, in order
	resets           []int        // columns reset by Config.Sparse, in order
	pulledBack       float64      // the share of the way back to x walked by Auto.PullBack
	opt              [2][]float32 // the optimiser state between loop executions (nil: zero)

	// The stall watch (see watchStall): the step at which the current window began (0:
	// none open), log F(τ|·) there, and the step at which the search stalled (0: it has not).
	windowStep int
	windowLogF float64
	stalled    int
}

// box is the row's instance and box (move is 1 where the feature may move, 0 where it is
// frozen).
func (r *row) box() *queryBox { return &r.queryBox }

// pointStats is what is known at one path point.
type pointStats struct {
	x                  []float32
	step               int
	prob, unc, uncPapr float32
}

// keptPoints are the stored points: every stride-th, plus the last (added at the end).
type keptPoints struct {
	stride int
	points []pointStats
}

// record adds cur as the next point of the path, with its statistics, after integrating
// the segment prev → cur. interior is the rule's interior gradient sum on that segment.
func (r *row) record(rule Rule, k int, p float32, grad []float32, unc, uncPaper float32, interior []float32) {
	if r.n > 0 {
		w0, wIn, w1 := rule.weights(k)
		for f := range r.phi {
			d := float64(r.cur[f] - r.prev[f])
			if d == 0 {
				continue
			}
			s := w0*float64(r.prevGrad[f]) + w1*float64(grad[f])
			if interior != nil {
				s += wIn * float64(interior[f])
			}
			r.phi[f] += d * s
		}
	}
	st := pointStats{x: r.cur, step: r.n, prob: p, unc: unc, uncPapr: uncPaper}
	if r.kept.stride <= 1 || r.n%r.kept.stride == 0 || r.resets != nil {
		r.kept.points = append(r.kept.points, st)
	}
	r.last = st
	r.n++
	r.sumUnc += float64(unc)
	r.sumPaper += float64(uncPaper)
	r.prevGrad = grad
	r.curRecorded = true
}

// advance makes next the current point: the segment cur → next is walked next.
func (r *row) advance(next []float32) {
	r.prev, r.cur, r.curRecorded = r.cur, next, false
}

// initRows readies rows for a walk under cfg: an attribution of j inputs, the stride of
// their kept points, and the first segment starting at x.
func initRows(cfg Config, rows []*row, j int) {
	stride := 1
	if cfg.PathPoints > 0 {
		stride = max(1, (cfg.Steps+2+cfg.PathPoints-2)/(cfg.PathPoints-1))
	}
	for _, r := range rows {
		r.phi = make([]float64, j)
		r.kept.stride = stride
		r.prev = r.x0
	}
}

// optimiseSharded splits the rows over the CPU cores and the backend's devices. Rows are
// independent, so each shard runs its own executions concurrently; the Go backend keeps
// about one core busy per execution, so this is where a second core pays, down to shards of
// a row each (from a few rows on, two shards are faster than one, docs/SPEED.md
// "Operations one after another"). On a backend of
// several devices there are at least as many shards as devices, and shard k runs every
// execution of its walk on device k mod devices. Each shard walks its rows in units of at
// most Batching.UnitRows, one after another (a step then takes a fraction of a second
// however large the job, so a cancelled context stops it promptly, and the step's tensors
// stay bounded); the first shard reports progress over all of its units.
func (jb job) optimiseSharded(ctx context.Context, cfg Config, rows []*row) error {
	initRows(cfg, rows, jb.pr.numFeatures())
	shards, err := jb.eachShard(ctx, len(rows), func(k, lo, hi int, dev compute.DeviceNum) error {
		part, size := rows[lo:hi], jb.pr.batching.UnitRows
		units := (len(part) + size - 1) / size
		for u := 0; u < units; u++ {
			var progress func(int)
			if k == 0 && jb.progress != nil {
				progress = func(t int) { jb.progress(u*cfg.Steps+t, units*cfg.Steps) }
			}
			if err := jb.optimise(ctx, cfg, part[u*size:min((u+1)*size, len(part))], dev, progress); err != nil {
				return err
			}
		}
		return nil
	})
	jb.pr.stats.shards.Store(int64(shards))
	return err
}

// eachShard splits n items (rows, or assemble's parts of rows) into as many contiguous
// shards as the job may run at the same time (jb.shards), one item at least each and their
// sizes within one of each other, and runs f on each at the same time: shard k is items
// lo..hi-1, run on device k mod devices. It returns the number of shards.
func (jb job) eachShard(ctx context.Context, n int, f func(k, lo, hi int, dev compute.DeviceNum) error) (int, error) {
	devices := jb.pr.devices()
	shards := max(1, min(jb.shards, n))
	if shards == 1 {
		return 1, f(0, 0, n, 0)
	}
	errs := make([]error, shards)
	var wg sync.WaitGroup
	for k := range shards {
		wg.Go(func() { errs[k] = f(k, k*n/shards, (k+1)*n/shards, compute.DeviceNum(k%devices)) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return shards, err // one error, however many shards saw it
	}
	return shards, errors.Join(errs...)
}

// maxShards is the most shards a call's rows are split into: shards (Settings.Shards), or
// one per CPU core if it is 0, and at least one per device.
func maxShards(shards, devices int) int {
	if shards <= 0 {
		shards = runtime.GOMAXPROCS(0)
	}
	return max(1, shards, devices)
}

// batch packs a vector of width j per item (row or segment) into one [R, j] tensor.
func batch[T any](items []T, j int, get func(T) []float32) *tensors.Tensor {
	flat := make([]float32, len(items)*j)
	for i, it := range items {
		copy(flat[i*j:], get(it))
	}
	return tensors.FromFlatDataAndDimensions(flat, len(items), j)
}

// measured is one execution's outputs at the rows' current points.
type measured struct {
	p, unc, uncPaper []float32
	grad, interior   []float32 // [R*J]; interior is nil when the rule has no interior nodes
}

func readMeasured(r stepResult) measured {
	m := measured{
		p:        tensors.MustCopyFlatData[float32](r.p),
		grad:     tensors.MustCopyFlatData[float32](r.grad),
		unc:      tensors.MustCopyFlatData[float32](r.unc),
		uncPaper: tensors.MustCopyFlatData[float32](r.uncPaper),
	}
	if r.interior != nil {
		m.interior = tensors.MustCopyFlatData[float32](r.interior)
	}
	return m
}

// recordFrom records row i's current point from m, or fails the row if m is not finite
// there (the path then ends at its previous point). It reports whether it recorded. The row
// keeps its part of m's slices (each execution's outputs are fresh copies, never changed).
func (m measured) recordFrom(cfg Config, r *row, i, j int, step int) bool {
	g := m.grad[i*j : (i+1)*j : (i+1)*j]
	var in []float32
	if m.interior != nil {
		in = m.interior[i*j : (i+1)*j : (i+1)*j]
	}
	if !finite(m.p[i]) || !finite(m.unc[i]) || !finite(m.uncPaper[i]) || !allFinite(g) || (in != nil && !allFinite(in)) {
		if r.n == 0 {
			r.fail("F, its gradient or L_ε is non-finite at the instance itself; fix: check the instance's values (they may overflow the models) and the model (its outputs may not be finite)")
			// x itself: keep it as the whole path, so the failed result still says where
			// it failed (its numbers are not reported: see pathResult).
			r.record(cfg.Rule, cfg.K, m.p[i], g, m.unc[i], m.uncPaper[i], nil)
		} else {
			r.diverged(cfg, step, whyMeasure)
			r.cur, r.curRecorded = r.prev, true
		}
		return false
	}
	r.record(cfg.Rule, cfg.K, m.p[i], g, m.unc[i], m.uncPaper[i], in)
	return true
}

func (r *row) fail(reason string) {
	r.active = false
	if r.failure == "" {
		r.failure = reason
	}
}

// divergenceBound is how far, in standard deviations, a search may take an input from the
// instance before it counts as diverged: far beyond any real data, where the models say
// nothing and the path's numbers (the attribution, the counterfactual) are meaningless.
const divergenceBound = 1e3

// diverged fails the row at a step (or, on a given path, at a point) for the reason what,
// with the fix.
func (r *row) diverged(cfg Config, step int, what string) {
	if r.given {
		r.fail(fmt.Sprintf("%s at point %d of the given path; fix: pass a path whose points the models can evaluate", what, step))
		return
	}
	r.fail(fmt.Sprintf("diverged at step %d (%s); %s, or smaller λ weights (-lambdas)", step, what, lrFix(cfg)))
}

// lrFix is the fix for a search that diverged, or whose path is not fit to integrate: a
// learning rate ten times smaller, and no larger than the default.
func lrFix(cfg Config) string {
	return fmt.Sprintf("fix: a smaller learning rate (-lr), such as %g", min(cfg.LearningRate/10, DefaultConfig().LearningRate))
}

// outside returns the first input of x (standardised) more than divergenceBound from the
// instance's x0, or -1.
func outside(x, x0 []float32) int {
	for f, v := range x {
		if math.Abs(float64(v-x0[f])) > divergenceBound {
			return f
		}
	}
	return -1
}

// measure evaluates the rows' current points (and the segments ending there) without
// optimising, and records them, at most Batching.UnitRows rows an execution, on device dev.
func measure(ctx context.Context, cfg Config, pr programs, rows []*row, step int, dev compute.DeviceNum) error {
	segs := make([]segment, len(rows))
	for i, r := range rows {
		segs[i] = segment{prev: r.prev, cur: r.cur, onehot: r.onehot}
	}
	m, err := pr.measureSegments(ctx, cfg, segs, dev)
	if err != nil {
		return err
	}
	for i, r := range rows {
		if !r.curRecorded {
			m.recordFrom(cfg, r, i, pr.numFeatures(), step)
		}
	}
	return nil
}

// segment is a stretch of a path to measure: F(τ|cur), its gradient and L_ε at cur, and
// the rule's interior gradients on prev → cur, for the target τ given as onehot.
type segment struct{ prev, cur, onehot []float32 }

// measureSegments measures segments, at most Batching.UnitRows an execution (padded to a
// power of two under Batching.PadRows), on device dev, and returns the measures in their
// order.
func (pr programs) measureSegments(ctx context.Context, cfg Config, segs []segment, dev compute.DeviceNum) (measured, error) {
	kind := execKind{rule: cfg.Rule, k: cfg.K}
	j, c := pr.numFeatures(), pr.clf.NumClasses()
	var all measured
	size := pr.batching.UnitRows
	for lo := 0; lo < len(segs); lo += size {
		if err := ctx.Err(); err != nil {
			return all, err
		}
		unit := segs[lo:min(lo+size, len(segs))]
		n := len(unit)
		if pr.batching.PadRows { // copies of the first segment, whose measures are dropped
			first := unit[0]
			unit = padded(unit, func() segment { return first })
		}
		ex, release, err := pr.stepExec(kind, len(unit))
		if err != nil {
			return all, err
		}
		out, err := pr.run(ex, dev, stepArgs(kind, stepVals[any]{
			prev:   batch(unit, j, func(s segment) []float32 { return s.prev }),
			xc:     batch(unit, j, func(s segment) []float32 { return s.cur }),
			target: batch(unit, c, func(s segment) []float32 { return s.onehot }),
		})...)
		release()
		if err != nil {
			return all, fmt.Errorf("quce: evaluating path points: %w", err)
		}
		m := readMeasured(readStep(kind, out))
		finalize(out)
		all.p, all.unc, all.uncPaper = append(all.p, m.p[:n]...), append(all.unc, m.unc[:n]...), append(all.uncPaper, m.uncPaper[:n]...)
		all.grad = append(all.grad, m.grad[:n*j]...)
		if m.interior != nil {
			all.interior = append(all.interior, m.interior[:n*j]...)
		}
	}
	return all, nil
}

// optimise walks the rows' paths on device dev; progress, if set, is told each step done.
func (jb job) optimise(ctx context.Context, cfg Config, rows []*row, dev compute.DeviceNum, progress func(step int)) error {
	w, err := engineFor(jb.choice, jb.pr, cfg, len(rows))
	if err != nil {
		return err
	}
	jb.pr.stats.engine.Store(ptr(w.name()))
	return w.walk(ctx, cfg, rows, dev, progress)
}

// stepsEngine walks a batch one execution per optimisation step, the rows' bookkeeping on
// the host (see engine).
type stepsEngine struct{ pr programs }

func (stepsEngine) name() string { return "steps" }

func (s stepsEngine) walk(ctx context.Context, cfg Config, rows []*row, dev compute.DeviceNum, progress func(step int)) error {
	pr := s.pr
	if err := measureStarts(ctx, cfg, pr, rows, dev); err != nil {
		return err
	}
	kind := execKind{optimise: true, opt: cfg.Optimizer, samples: cfg.Samples, rule: cfg.Rule, k: cfg.K}
	b := &walkBatch{pr: pr, kind: kind, dev: dev, release: func() {}, zeros: make([]float32, pr.numFeatures())}
	defer b.close()
	for t := 1; t <= cfg.Steps; t++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if n := activeRows(rows); n == 0 {
			break
		} else if b.ex == nil || n <= len(b.live)/2 {
			if err := b.pack(rows); err != nil {
				return err
			}
		}
		if err := b.step(cfg, t); err != nil {
			return err
		}
		if progress != nil {
			progress(t)
		}
	}
	// The last point of every path (and its segment) still needs evaluating.
	return measure(ctx, cfg, pr, rows, cfg.Steps, dev)
}

// measureStarts measures point 0 of the rows' paths, x itself, then the seeded start of
// offset paths, on device dev.
func measureStarts(ctx context.Context, cfg Config, pr programs, rows []*row, dev compute.DeviceNum) error {
	starts := make([][]float32, len(rows))
	for i, r := range rows {
		starts[i], r.cur = r.cur, r.x0
	}
	if err := measure(ctx, cfg, pr, rows, 0, dev); err != nil {
		return err
	}
	offsets := false
	for i, r := range rows {
		if r.offset {
			r.advance(starts[i])
			offsets = true
		}
	}
	if offsets {
		if err := measure(ctx, cfg, pr, rows, 0, dev); err != nil {
			return err
		}
	}
	return nil
}

// step executes optimisation step t on the batch: it records each active row's current
// point and moves the row to its next point, or stops or fails it.
func (b *walkBatch) step(cfg Config, t int) error {
	j := len(b.zeros)
	out, noise, err := b.exec(cfg, t)
	if err != nil {
		return err
	}
	res := readStep(b.kind, out)
	m := readMeasured(res)
	obj := tensors.MustCopyFlatData[float32](res.obj)
	next := tensors.MustCopyFlatData[float32](res.next)
	// Free this step's buffers now rather than at garbage collection: a backend that
	// keeps them outside Go's heap (ONNX Runtime) would otherwise grow with the steps.
	// The optimiser state is freed once the next state has replaced it.
	finalize([]*tensors.Tensor{res.p, res.grad, res.unc, res.uncPaper, res.interior, res.obj, b.m, b.v})
	finalize(noise)
	b.m, b.v = res.m, res.v
	changed := false // a row stopped or failed at this step
	for i, r := range b.live {
		if r.active && walkRow(cfg, b.pr.features, r, i, t, m, obj[i], next[i*j:(i+1)*j:(i+1)*j]) {
			changed = true
		}
	}
	if changed {
		finalize([]*tensors.Tensor{res.next})
		b.rebuild()
	} else {
		// While every row of the batch advances, a step's output point is the next
		// step's input without a copy through the host.
		finalize([]*tensors.Tensor{b.prev})
		b.prev, b.cur = b.cur, res.next
	}
	return nil
}

// exec runs step t's execution on the batch, with latent noise drawn from each row's
// generator when the objective samples, and returns its outputs and the noise argument
// (empty without sampling), which the caller frees.
func (b *walkBatch) exec(cfg Config, t int) (out []*tensors.Tensor, noise []any, err error) {
	n, L := len(b.live), b.pr.vae.Config.Latent
	in := stepVals[any]{prev: b.prev, xc: b.cur, target: b.target, x0: b.x0, move: b.move, lo: b.lo, hi: b.hi,
		m: b.m, v: b.v, t: float32(t), lam: b.lam, lr: float32(cfg.LearningRate)}
	if cfg.Samples > 0 {
		draws := make([]float32, cfg.Samples*n*L)
		for i, r := range b.live {
			for s := 0; s < cfg.Samples; s++ {
				for l := 0; l < L; l++ {
					draws[(s*n+i)*L+l] = float32(r.rng.NormFloat64())
				}
			}
		}
		in.noise = tensors.FromFlatDataAndDimensions(draws, cfg.Samples, n, L)
		noise = []any{in.noise}
	}
	if out, err = b.pr.run(b.ex, b.dev, stepArgs(b.kind, in)...); err != nil {
		return nil, nil, fmt.Errorf("quce: optimisation step %d: %w", t, err)
	}
	return out, noise, nil
}

// walkRow records the active row r's current point (row i of the step's measurement m) and
// moves it to nx, the step's next point, unless the row fails (the point is not finite, the
// objective obj is not, or nx is too far from the instance) or stops early; a stalled row
// changes its λ (see watchStall). It reports whether the row stopped, failed or changed.
func walkRow(cfg Config, features []string, r *row, i, t int, m measured, obj float32, nx []float32) (stopped bool) {
	if !r.curRecorded && !m.recordFrom(cfg, r, i, len(nx), t) {
		return true
	}
	if !finite(obj) || !allFinite(nx) {
		r.diverged(cfg, t, whyObjective)
		return true
	}
	if f := outside(nx, r.x0); f >= 0 {
		r.diverged(cfg, t, whyOutside(features[f]))
		return true
	}
	switch r.watchStall(cfg, t, m.grad[i*len(nx):(i+1)*len(nx)]) {
	case stallStop:
		r.active = false
		return true
	case stallActed:
		// The row's λ changed: the batch takes it anew at the next step.
		r.advance(nx)
		return true
	}
	if cfg.EarlyStop > 0 {
		// Counts consecutive valid points; the row stops at the current one.
		if float64(r.last.prob) >= cfg.Threshold {
			r.validRun++
		} else {
			r.validRun = 0
		}
		if r.validRun >= cfg.EarlyStop {
			r.active = false
			return true
		}
	}
	r.advance(nx)
	return false
}

// A search has stalled when its point is not valid and log F(τ|·) has risen by less than
// stallRise over the last stallWindow steps while the class term's gradient ‖∇ log F(τ|·)‖
// is below stallGradient (per standard deviation): the model's gradient has vanished, as on
// the saturated plateau of a tanh or sigmoid network far from its boundary, so the
// proximity and uncertainty terms, whose gradients have not, hold the point in place. (A
// point held by a class gradient of ordinary size is where λ2 and λ3 outweigh the class
// term: that is the λ the user chose, and automatic λ's business, not a stall.) The row
// then walks on without the proximity term (λ2 = 0), which is what holds it near x: the
// uncertainty term moves it along the data, off the plateau (on the saturating W-BC model
// of testdata, λ2 = 0 made every stalled test row valid, where dropping λ3 too left rows
// stalled), and it stops at its first point with F(τ|·) ≥ ϑ + stallMargin, the margin
// keeping it valid against rounding and the projection to legal rows. The walk is one
// path throughout, so the attribution and its completeness check cover it whole.
const (
	stallWindow   = 100
	stallRise     = 0.01
	stallGradient = 0.01
	stallMargin   = 0.05
)

// stallOutcome is what watchStall did to a row.
type stallOutcome int

const (
	stallNone  stallOutcome = iota // nothing: the row walks on
	stallActed                     // the row stalled: its λ2 is now 0
	stallStop                      // a stalled row reached ϑ + stallMargin: it stops here
)

// watchStall watches row r at step t, its current point recorded with F(τ|·) = r.last.prob
// and ∇F(τ|·) = grad, for a stall (see stallWindow), and acts on one.
func (r *row) watchStall(cfg Config, t int, grad []float32) stallOutcome {
	p := float64(r.last.prob)
	switch {
	case r.stalled > 0:
		if p >= cfg.Threshold+stallMargin {
			return stallStop
		}
		return stallNone
	case p >= cfg.Threshold:
		r.windowStep = 0
		return stallNone
	}
	logF := math.Log(max(p, math.SmallestNonzeroFloat32))
	if r.windowStep == 0 {
		r.windowStep, r.windowLogF = t, logF
		return stallNone
	}
	if t-r.windowStep < stallWindow {
		return stallNone
	}
	if logF-r.windowLogF >= stallRise || norm(grad) > stallGradient*p {
		r.windowStep, r.windowLogF = t, logF
		return stallNone
	}
	r.stalled = t
	r.lam[1] = 0
	return stallActed
}

// norm is the Euclidean norm of v.
func norm(v []float32) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func activeRows(rows []*row) (n int) {
	for _, r := range rows {
		if r.active {
			n++
		}
	}
	return n
}

// walkBatch is what one optimisation step executes: the rows in live, which are the active
// rows and those that stopped or failed since the batch was last packed (their outputs are
// ignored, whatever their points), and their inputs as tensors.
//
// The walk packs the batch anew, with the active rows only, once at most half of it is
// active: rows that stop early (Config.EarlyStop) or fail stop costing steps, and a walk
// compiles at most about log2(rows) batch sizes. Rows are independent, so packing changes no
// row's result (with the SIMD kernels, bit for bit; see TestRowsIndependentOfBatch).
type walkBatch struct {
	pr      programs
	kind    execKind
	dev     compute.DeviceNum // the device its executions run on, where its tensors stay
	zeros   []float32         // the moves of rows that no longer walk, and a new row's optimiser state
	live    []*row
	ex      *graph.Exec
	release func()

	target, x0, lo, hi *tensors.Tensor // fixed while the batch is
	lam                *tensors.Tensor // λ per row, remade with the segment (see watchStall)
	m, v               *tensors.Tensor // the optimiser state
	prev, cur, move    *tensors.Tensor // the segment being walked and the moving features
}

// pack makes the batch the active rows, with their optimiser state.
func (b *walkBatch) pack(rows []*row) error {
	j := len(b.zeros)
	state := make(map[*row][2][]float32, len(b.live))
	if b.m != nil {
		m, v := tensors.MustCopyFlatData[float32](b.m), tensors.MustCopyFlatData[float32](b.v)
		for i, r := range b.live {
			state[r] = [2][]float32{m[i*j : (i+1)*j], v[i*j : (i+1)*j]}
		}
	}
	var next []*row
	for _, r := range rows {
		if r.active {
			next = append(next, r)
		}
	}
	b.release()
	var err error
	if b.ex, b.release, err = b.pr.stepExec(b.kind, len(next)); err != nil {
		b.release = func() {}
		return err
	}
	finalize([]*tensors.Tensor{b.target, b.x0, b.lo, b.hi, b.m, b.v})
	b.live = next
	b.target = batch(next, b.pr.clf.NumClasses(), func(r *row) []float32 { return r.onehot })
	b.x0 = batch(next, j, func(r *row) []float32 { return r.x0 })
	b.lo = batch(next, j, func(r *row) []float32 { return r.lo })
	b.hi = batch(next, j, func(r *row) []float32 { return r.hi })
	stateOf := func(k int) func(*row) []float32 {
		return func(r *row) []float32 {
			if st, ok := state[r]; ok {
				return st[k]
			}
			return b.zeros // Adam and momentum start from zero
		}
	}
	b.m, b.v = batch(next, j, stateOf(0)), batch(next, j, stateOf(1))
	b.rebuild()
	return nil
}

// rebuild makes the segment, the moving features and the λ from the rows (zero moves for
// the rows that no longer walk; a stalled row's λ changes, see watchStall).
func (b *walkBatch) rebuild() {
	j := len(b.zeros)
	finalize([]*tensors.Tensor{b.prev, b.cur, b.move, b.lam})
	b.lam = batch(b.live, 3, func(r *row) []float32 { return r.lam[:] })
	b.prev = batch(b.live, j, func(r *row) []float32 { return r.prev })
	b.cur = batch(b.live, j, func(r *row) []float32 { return r.cur })
	b.move = batch(b.live, j, func(r *row) []float32 {
		if r.active {
			return r.move
		}
		return b.zeros
	})
}

func (b *walkBatch) close() {
	b.release()
	finalize([]*tensors.Tensor{b.target, b.x0, b.lo, b.hi, b.lam, b.m, b.v, b.prev, b.cur, b.move})
}

// measurePaths walks given paths (one per row, starting at x) through the same
// measurement as QUCE's own paths, on device dev.
func measurePaths(ctx context.Context, cfg Config, pr programs, rows []*row, paths [][][]float32, dev compute.DeviceNum) error {
	longest := 0
	for i, r := range rows {
		longest = max(longest, len(paths[i]))
		r.cur, r.given = r.x0, true
	}
	initRows(Config{PathPoints: cfg.PathPoints, Steps: longest}, rows, pr.numFeatures())
	for s := 0; s < longest; s++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s > 0 {
			for i, r := range rows {
				if s < len(paths[i]) && r.failure == "" {
					r.advance(paths[i][s])
				}
			}
		}
		if err := measure(ctx, cfg, pr, rows, s, dev); err != nil {
			return err
		}
	}
	return nil
}

// finalize releases tensors' memory (on the device too) without waiting for the GC.
func finalize[T any](ts []T) {
	for _, t := range ts {
		if tt, ok := any(t).(*tensors.Tensor); ok && tt != nil {
			tt.FinalizeAll()
		}
	}
}

package quce

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/quce-go/quce/internal/signature"
	"github.com/quce-go/quce/internal/whileloop"
)

// The loop engine: a batch's search as one compiled program (or a few, for long jobs),
// graph.While over the optimisation steps, where the step engine (stepsEngine, walk.go) runs
// one execution per step and does the bookkeeping on the host.
//
// Inside the loop every row does what walkRow and row.record do on the host, on the same
// numbers in the same order: it records its current point (the attribution's segment
// integral and the uncertainty sums in float64, as on the host, so the two engines agree to
// the last bit wherever the backend's kernels do), keeps every stride-th point in a buffer
// written by scatter, fails on non-finite values or a diverging input, watches for a stall,
// stops early, and moves. A row that stops or fails is masked (it no longer moves and its
// state is kept) instead of being packed out of the batch. The host then turns the
// program's outputs back into the rows' state, so everything after the search (projection,
// resets, pull-back, assembly) is shared by the two engines.
//
// The bookkeeping runs at every step for every row, also where nothing happens (a stall is
// judged once in stallWindow steps): GoMLX v0.28 builds every closure as a child of the main
// function, so no If or inner While can sit inside the loop's body to skip it. On the
// pure-Go backend this makes a step of a one-row batch cost more than the step engine's
// (docs/SPEED.md), which is why -engine auto runs the replay or step engine there; on
// backends where an execution costs far more than an operation (a GPU) the loop is the
// point (there it is many times faster than the step engine, and faster than the PyTorch
// peer; docs/GPU.md). The loop is built by
// package whileloop, so that XLA compiles it: the batch's fixed inputs reach the body as
// the loop's consts.
//
// The execution count falls from one per step to one per Batching.LoopRowSteps row-steps
// (on a CPU, a 1000-step search of up to 262 rows is one execution; on a GPU, of a unit of
// up to 4096 rows), plus the measurements of the path's first points and of its last. Every
// execution of a batch runs one compiled program: the kept buffer is sized for the longest
// execution, and a shorter last one leaves slots unwritten.

// loopEarlyStopExecutions is how many executions a search with Config.EarlyStop is split
// into, so that the rows that stopped leave the batch.
const loopEarlyStopExecutions = 8

// The reasons a row fails inside the loop (loopVals.failCode).
const (
	loopOK            = iota
	loopMeasureFailed // F, its gradient or L_ε became non-finite
	loopObjFailed     // the objective or its gradient became non-finite
	loopOutside       // an input went beyond divergenceBound
)

// The failure reasons' words, shared with the step engine (walkRow).
const (
	whyMeasure   = "F, its gradient or L_ε became non-finite"
	whyObjective = "the objective or its gradient became non-finite"
)

// whyOutside says that input name moved beyond divergenceBound.
func whyOutside(name string) string {
	return fmt.Sprintf("input %q moved more than %g standard deviations from the instance", name, float64(divergenceBound))
}

// loopVals are the loop's state, its program's inputs after loopConsts and its outputs,
// by name. T is *Node inside the program and *tensors.Tensor outside. Per row unless said.
type loopVals[T any] struct {
	t                 T // the next step (int32 scalar)
	prev, cur         T // [R,J] the segment being walked
	prevGrad          T // [R,J] ∇F(τ|prev)
	m, v              T // [R,J] the optimiser state
	lam               T // [R,3]
	phi               T // [R,J] float64, the attribution so far
	n                 T // int32, the points so far
	sumUnc, sumPaper  T // float64, Σ L_ε over the points (both forms)
	lastP             T // F(τ|·) at the last point
	lastUnc, lastUncP T // L_ε at the last point (both forms)
	recorded          T // bool: cur is already a point of the path
	active            T // bool
	validRun          T // int32, consecutive valid points (Config.EarlyStop)
	winStep           T // int32, the stall window's first step (0: none)
	winLogF           T // float64, log F(τ|·) there
	stalled           T // int32, the step at which the row stalled (0: it has not)
	failCode          T // int32, loopOK or the reason the row failed
	failStep          T // int32, the step it failed at
	failInput         T // int32, the input that diverged (loopOutside)
	kept              T // [(Q+1)·R, W] float32, the kept points, slot-major (see keep and keptWidth)
}

func (s *loopVals[T]) fields() []*T {
	return append(s.carried(), &s.failCode, &s.failStep, &s.failInput, &s.kept)
}

// carried are the fields an execution starts from the rows' state; the others (the failure
// and the kept points) start at zero inside the program, so that the kept buffer, up to
// Batching.LoopKeptBytes, is not made on the host and copied in for every execution.
func (s *loopVals[T]) carried() []*T {
	return []*T{&s.t, &s.prev, &s.cur, &s.prevGrad, &s.m, &s.v, &s.lam, &s.phi, &s.n, &s.sumUnc,
		&s.sumPaper, &s.lastP, &s.lastUnc, &s.lastUncP, &s.recorded, &s.active, &s.validRun, &s.winStep,
		&s.winLogF, &s.stalled}
}

// loopConsts are the program's first inputs, fixed while it runs.
type loopConsts[T any] struct {
	target, x0, move, lo, hi T // [R,C] one-hot τ; [R,J]
	lr, threshold            T // float32; float64 ϑ
	last                     T // int32, the last step this execution walks
	earlyStop, stride        T // int32 (Config.EarlyStop; the kept points' stride)
}

func (c *loopConsts[T]) fields() []*T {
	return []*T{&c.target, &c.x0, &c.move, &c.lo, &c.hi, &c.lr, &c.threshold, &c.last, &c.earlyStop, &c.stride}
}

// keptWidth is a kept point's width in the buffer: its J inputs, then n+1 (0 marks a slot
// not written), F(τ|·) and L_ε in both forms.
func keptWidth(j int) int { return j + 4 }

// loopKey names a compiled loop program: the step kind, the rows and the kept slots Q.
type loopKey struct {
	kind       execKind
	rows, kept int
	earlyStop  bool // Config.EarlyStop > 0: the program counts valid runs
}

// loopEngine walks a batch as one compiled program (see the file's comment and engine).
type loopEngine struct{ pr programs }

func (loopEngine) name() string { return "loop" }

// loopRuns reports whether the search for cfg can run on the loop engine: the backend runs
// While with the operations the loop needs, and the objective uses the mean code (sampled
// codes are drawn on the host, per row and step, so that both engines draw the same).
func (pr programs) loopRuns(cfg Config) bool {
	if cfg.Samples > 0 {
		return false
	}
	caps := pr.backend.Capabilities()
	return whileloop.Runs(pr.backend) && caps.Operations[compute.OpTypeScatterSum] && caps.DTypes[dtypes.Float64]
}

func (l loopEngine) walk(ctx context.Context, cfg Config, rows []*row, dev compute.DeviceNum, progress func(step int)) error {
	if l.pr.batching.PadRows && len(rows) > 0 {
		rows = padded(rows, func() *row { return rows[0].inert() })
	}
	if err := measureStarts(ctx, cfg, l.pr, rows, dev); err != nil {
		return err
	}
	j := l.pr.numFeatures()
	stride := max(rows[0].kept.stride, 1)
	b := l.pr.batching
	chunk := max(1, min(cfg.Steps, b.LoopRowSteps/len(rows)))
	// The kept buffer holds at most chunk/stride + 2 points a row.
	chunk = max(1, min(chunk, (b.LoopKeptBytes/(4*len(rows)*keptWidth(j))-3)*stride))
	if cfg.EarlyStop > 0 {
		// Rows that stop early leave the batch between executions, as they leave the step
		// engine's (with -early-stop 5 most rows stop within the first hundred steps).
		chunk = min(chunk, max(cfg.Steps/loopEarlyStopExecutions, 1))
	}
	for t := 1; t <= cfg.Steps; t += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		live := liveRows(rows)
		if live == nil {
			break
		}
		last := min(t+chunk-1, cfg.Steps)
		if err := l.loopChunk(cfg, live, t, last, chunk/stride+2, dev); err != nil {
			return err
		}
		if progress != nil {
			progress(last)
		}
	}
	return measure(ctx, cfg, l.pr, rows, cfg.Steps, dev)
}

// inert is a copy of r that never moves, padding a batch (Batching.PadRows): it is measured
// and carried like a stopped row, on state of its own, and dropped after the walk.
func (r *row) inert() *row {
	d := *r
	d.active = false
	d.phi = slices.Clone(d.phi)
	d.kept.points = slices.Clone(d.kept.points)
	return &d
}

// liveRows returns the active rows (nil if none), padded with rows that stopped up to a
// power of two (or all the rows), so that a shrinking batch compiles a program for at most
// log2(rows) + 1 sizes: the loop leaves a stopped row as it is.
func liveRows(rows []*row) []*row {
	var live, stopped []*row
	for _, r := range rows {
		if r.active {
			live = append(live, r)
		} else {
			stopped = append(stopped, r)
		}
	}
	if len(live) == 0 {
		return nil
	}
	return append(live, stopped[:min(padTo(len(live)), len(rows))-len(live)]...)
}

// loopChunk runs steps first..last of the rows' search in one execution, on device dev,
// keeping up to q points a row (at least (last-first+1)/stride + 2).
func (l loopEngine) loopChunk(cfg Config, rows []*row, first, last, q int, dev compute.DeviceNum) error {
	j, c := l.pr.numFeatures(), l.pr.clf.NumClasses()
	stride := max(rows[0].kept.stride, 1)
	kind := execKind{optimise: true, opt: cfg.Optimizer, rule: cfg.Rule, k: cfg.K}
	ex, release, err := l.pr.execs.get(execKey{loop: loopKey{kind: kind, rows: len(rows), kept: q, earlyStop: cfg.EarlyStop > 0}}, func() (*Exec, error) {
		return named(NewExec(l.pr.backend, l.pr.loopGraph(kind, q, cfg.EarlyStop > 0)))(programLoop)
	})
	if err != nil {
		return err
	}
	defer release()
	consts := loopConsts[*tensors.Tensor]{
		target: batch(rows, c, func(r *row) []float32 { return r.onehot }),
		x0:     batch(rows, j, func(r *row) []float32 { return r.x0 }),
		move:   batch(rows, j, func(r *row) []float32 { return r.move }),
		lo:     batch(rows, j, func(r *row) []float32 { return r.lo }),
		hi:     batch(rows, j, func(r *row) []float32 { return r.hi }),
		lr:     tensors.FromValue(float32(cfg.LearningRate)), threshold: tensors.FromValue(cfg.Threshold),
		last: tensors.FromValue(int32(last)), earlyStop: tensors.FromValue(int32(cfg.EarlyStop)),
		stride: tensors.FromValue(int32(stride)),
	}
	state := l.loopState(rows, first)
	args := signature.Args(append(consts.fields(), state.carried()...))
	out, err := l.pr.run(ex, dev, args...)
	finalize(args)
	if err != nil {
		return engineError("loop", first, last, err)
	}
	var res loopVals[*tensors.Tensor]
	signature.Set(res.fields(), out)
	l.loopRead(cfg, rows, res, q)
	finalize(out)
	return nil
}

// loopState packs the rows' state at step first (the carried fields).
func (l loopEngine) loopState(rows []*row, first int) loopVals[*tensors.Tensor] {
	j, n := l.pr.numFeatures(), len(rows)
	phi := make([]float64, n*j)
	for i, r := range rows {
		copy(phi[i*j:], r.phi)
	}
	zeros := make([]float32, j)
	return loopVals[*tensors.Tensor]{
		t:    tensors.FromValue(int32(first)),
		prev: batch(rows, j, func(r *row) []float32 { return r.prev }),
		cur:  batch(rows, j, func(r *row) []float32 { return r.cur }),
		prevGrad: batch(rows, j, func(r *row) []float32 {
			if r.prevGrad == nil {
				return zeros
			}
			return r.prevGrad
		}),
		m: batch(rows, j, optState(0, zeros)), v: batch(rows, j, optState(1, zeros)),
		lam:      batch(rows, 3, func(r *row) []float32 { return r.lam[:] }),
		phi:      tensors.FromFlatDataAndDimensions(phi, n, j),
		n:        perRow(rows, func(r *row) int32 { return int32(r.n) }),
		sumUnc:   perRow(rows, func(r *row) float64 { return r.sumUnc }),
		sumPaper: perRow(rows, func(r *row) float64 { return r.sumPaper }),
		lastP:    perRow(rows, func(r *row) float32 { return r.last.prob }),
		lastUnc:  perRow(rows, func(r *row) float32 { return r.last.unc }),
		lastUncP: perRow(rows, func(r *row) float32 { return r.last.uncPapr }),
		recorded: perRow(rows, func(r *row) bool { return r.curRecorded }),
		active:   perRow(rows, func(r *row) bool { return r.active }),
		validRun: perRow(rows, func(r *row) int32 { return int32(r.validRun) }),
		winStep:  perRow(rows, func(r *row) int32 { return int32(r.windowStep) }),
		winLogF:  perRow(rows, func(r *row) float64 { return r.windowLogF }),
		stalled:  perRow(rows, func(r *row) int32 { return int32(r.stalled) }),
	}
}

// optState returns a row's optimiser state k (0: m, 1: v) between executions, or zeros
// where it has none yet (Adam and momentum start from zero).
func optState(k int, zeros []float32) func(r *row) []float32 {
	return func(r *row) []float32 {
		if r.opt[k] == nil {
			return zeros
		}
		return r.opt[k]
	}
}

// perRow is f of every row, as a tensor [rows].
func perRow[T bool | int32 | float32 | float64](rows []*row, f func(*row) T) *tensors.Tensor {
	v := make([]T, len(rows))
	for i, r := range rows {
		v[i] = f(r)
	}
	return tensors.FromFlatDataAndDimensions(v, len(rows))
}

// loopRead turns a loop execution's outputs back into the rows' state.
func (l loopEngine) loopRead(cfg Config, rows []*row, s loopVals[*tensors.Tensor], q int) {
	j, w := l.pr.numFeatures(), keptWidth(l.pr.numFeatures())
	f32s := func(t *tensors.Tensor) []float32 { return tensors.MustCopyFlatData[float32](t) }
	f64s := func(t *tensors.Tensor) []float64 { return tensors.MustCopyFlatData[float64](t) }
	i32s := func(t *tensors.Tensor) []int32 { return tensors.MustCopyFlatData[int32](t) }
	bools := func(t *tensors.Tensor) []bool { return tensors.MustCopyFlatData[bool](t) }
	prev, cur, prevGrad, m, v := f32s(s.prev), f32s(s.cur), f32s(s.prevGrad), f32s(s.m), f32s(s.v)
	lam, phi, kept := f32s(s.lam), f64s(s.phi), f32s(s.kept)
	n, validRun, winStep, stalled := i32s(s.n), i32s(s.validRun), i32s(s.winStep), i32s(s.stalled)
	failCode, failStep, failInput := i32s(s.failCode), i32s(s.failStep), i32s(s.failInput)
	sumUnc, sumPaper, winLogF := f64s(s.sumUnc), f64s(s.sumPaper), f64s(s.winLogF)
	lastP, lastUnc, lastUncP := f32s(s.lastP), f32s(s.lastUnc), f32s(s.lastUncP)
	recorded, active := bools(s.recorded), bools(s.active)
	part := func(v []float32, i, width int) []float32 { return v[i*width : (i+1)*width : (i+1)*width] }
	for i, r := range rows {
		for k := 0; k < q; k++ {
			pt := part(kept, k*len(rows)+i, w)
			if pt[j] == 0 {
				continue
			}
			r.kept.points = append(r.kept.points, pointStats{x: pt[:j:j], step: int(pt[j]) - 1, prob: pt[j+1], unc: pt[j+2], uncPapr: pt[j+3]})
		}
		r.prev, r.cur, r.prevGrad = part(prev, i, j), part(cur, i, j), part(prevGrad, i, j)
		r.opt = [2][]float32{part(m, i, j), part(v, i, j)}
		copy(r.lam[:], part(lam, i, 3))
		copy(r.phi, phi[i*j:(i+1)*j])
		r.n, r.sumUnc, r.sumPaper = int(n[i]), sumUnc[i], sumPaper[i]
		r.curRecorded, r.active = recorded[i], active[i]
		r.validRun, r.windowStep, r.windowLogF, r.stalled = int(validRun[i]), int(winStep[i]), winLogF[i], int(stalled[i])
		// The last point is the current one if it is recorded, else the one before it.
		lastX := r.prev
		if r.curRecorded {
			lastX = r.cur
		}
		r.last = pointStats{x: lastX, step: r.n - 1, prob: lastP[i], unc: lastUnc[i], uncPapr: lastUncP[i]}
		switch failCode[i] {
		case loopMeasureFailed:
			r.diverged(cfg, int(failStep[i]), whyMeasure)
		case loopObjFailed:
			r.diverged(cfg, int(failStep[i]), whyObjective)
		case loopOutside:
			r.diverged(cfg, int(failStep[i]), whyOutside(l.pr.features[failInput[i]]))
		}
	}
}

// loopGraph builds the loop program for q kept slots a row: loopConsts then loopVals'
// carried fields in, every loopVals field out.
func (pr programs) loopGraph(kind execKind, q int, earlyStop bool) func([]*Node) []*Node {
	return func(args []*Node) []*Node {
		var c loopConsts[*Node]
		var s0 loopVals[*Node]
		signature.Set(append(c.fields(), s0.carried()...), args)
		g := s0.t.Graph()
		rows := s0.cur.Shape().Dimensions[0]
		s0.failCode = Zeros(g, shapes.Make(dtypes.Int32, rows)) // loopOK
		s0.failStep, s0.failInput = s0.failCode, s0.failCode
		s0.kept = Zeros(g, shapes.Make(dtypes.Float32, (q+1)*rows, keptWidth(pr.numFeatures())))
		// The consts, and n0 (the rows' points when the execution began: the kept slots count
		// from it), reach the loop's closures as parameters (package whileloop).
		n0 := s0.n
		consts := signature.Values(append(c.fields(), &n0))
		// unpack names a closure's parameters.
		unpack := func(state, consts []*Node) (c loopConsts[*Node], s loopVals[*Node], n0 *Node) {
			signature.Set(s.fields(), state)
			signature.Set(append(c.fields(), &n0), consts)
			return c, s, n0
		}
		return whileloop.Build(signature.Values(s0.fields()), consts,
			func(state, consts []*Node) []*Node {
				c, s, _ := unpack(state, consts)
				return []*Node{LogicalAnd(LessOrEqual(s.t, c.last), ReduceLogicalOr(s.active))}
			},
			func(state, consts []*Node) []*Node {
				c, s, n0 := unpack(state, consts)
				next := pr.loopStep(kind, earlyStop, c, s, n0)
				return signature.Values(next.fields())
			})
	}
}

// loopStep is one step of every row inside the loop (see the file's comment): what walkRow
// and row.record do on the host.
func (pr programs) loopStep(kind execKind, earlyStop bool, c loopConsts[*Node], s loopVals[*Node], n0 *Node) loopVals[*Node] {
	g := s.t.Graph()
	r, j := s.cur.Shape().Dimensions[0], s.cur.Shape().Dimensions[1]
	col := func(b *Node) *Node { return ExpandAxes(b, -1) } // [R] → [R,1]
	// finiteRows says, per row, whether every value of xs ([R] or [R,·]; nil ones left out)
	// is finite: x − x is 0, or NaN for NaN and ±Inf, so a row's sum of them is 0 only then
	// (one check over all of them: on the pure-Go backend every operation costs a dispatch).
	finiteRows := func(xs ...*Node) *Node {
		var cols []*Node
		for _, x := range xs {
			switch {
			case x == nil:
			case x.Rank() == 1:
				cols = append(cols, col(x))
			default:
				cols = append(cols, x)
			}
		}
		x := Concatenate(cols, 1)
		d := ReduceSum(Sub(x, x), 1)
		return Equal(d, ZerosLike(d))
	}
	f64 := func(x *Node) *Node { return ConvertDType(x, dtypes.Float64) }
	moveNow := Mul(c.move, col(ConvertDType(s.active, dtypes.Float32)))
	o := pr.step(kind, stepIn{prev: s.prev, xc: s.cur, target: c.target, x0: c.x0, move: moveNow, lo: c.lo, hi: c.hi,
		m: s.m, v: s.v, t: ConvertDType(s.t, dtypes.Float32), lr: c.lr}, splitLambdas(s.lam))
	next := s
	// A row that stopped never moves again, so its optimiser state need not be kept (the
	// step engine, too, takes the step's state for every row of its batch).
	next.m, next.v = o.m, o.v
	// Each row mask widened once to [R,J] for the picks of whole rows.
	wide := map[*Node]*Node{}
	pickRow := func(b, onTrue, onFalse *Node) *Node {
		w, ok := wide[b]
		if !ok {
			w = BroadcastToDims(ExpandAxes(b, -1), r, j)
			wide[b] = w
		}
		return Where(w, onTrue, onFalse)
	}

	// Record the current point (row.record), or fail the row if it is not finite there.
	measured := finiteRows(o.p, o.unc, o.uncPaper, o.grad, o.interior)
	toRecord := LogicalAnd(s.active, Not(s.recorded))
	rec := LogicalAnd(toRecord, measured)
	bad := LogicalAnd(toRecord, Not(measured))
	w0, wIn, w1 := kind.rule.weights(kind.k)
	seg := Add(MulScalar(f64(s.prevGrad), w0), MulScalar(f64(o.grad), w1))
	if o.interior != nil {
		seg = Add(seg, MulScalar(f64(o.interior), wIn))
	}
	next.phi = pickRow(rec, Add(s.phi, Mul(f64(Sub(s.cur, s.prev)), seg)), s.phi)
	next.kept = pr.keep(s, o, rec, n0, c.stride)
	next.lastP, next.lastUnc, next.lastUncP = pick(rec, o.p, s.lastP), pick(rec, o.unc, s.lastUnc), pick(rec, o.uncPaper, s.lastUncP)
	next.sumUnc = pick(rec, Add(s.sumUnc, f64(o.unc)), s.sumUnc)
	next.sumPaper = pick(rec, Add(s.sumPaper, f64(o.uncPaper)), s.sumPaper)
	next.n = pick(rec, AddScalar(s.n, 1), s.n)
	next.prevGrad = pickRow(rec, o.grad, s.prevGrad)
	// A point that is not finite ends the path at the one before it.
	next.cur = pickRow(bad, s.prev, s.cur)
	next.recorded = LogicalOr(s.recorded, toRecord)
	fail := func(now *Node, code int32, alive *Node) *Node { // records failure code for rows failing now
		next.failCode = pick(now, BroadcastToDims(Const(g, code), r), next.failCode)
		next.failStep = pick(now, BroadcastToDims(s.t, r), next.failStep)
		return LogicalAnd(alive, Not(now))
	}
	alive := fail(bad, loopMeasureFailed, s.active)

	// The step's next point must be finite and near the instance.
	objBad := LogicalAnd(alive, Not(finiteRows(o.obj, o.next)))
	alive = fail(objBad, loopObjFailed, alive)
	far := GreaterThan(Abs(Sub(o.next, c.x0)), BroadcastToDims(Const(g, float32(divergenceBound)), r, j))
	farRow := LogicalAnd(alive, ReduceLogicalOr(far, 1))
	next.failInput = pick(farRow, ConvertDType(ArgMax(ConvertDType(far, dtypes.Float32), 1), dtypes.Int32), s.failInput)
	alive = fail(farRow, loopOutside, alive)

	// The stall watch (row.watchStall) and the early stop.
	alive = loopWatch(c, s, &next, o.grad, alive, earlyStop)

	// The rows still walking move to the step's next point.
	next.prev = pickRow(alive, next.cur, next.prev)
	next.cur = pickRow(alive, o.next, next.cur)
	next.recorded = LogicalAnd(next.recorded, Not(alive))
	next.active = alive
	next.t = AddScalar(s.t, 1)
	return next
}

// loopWatch is row.watchStall and the early stop for the rows still alive, whose current
// point was just recorded into next, with ∇F(τ|·) grad there: it sets next's stall window,
// stall step, λ and, with earlyStop, valid run, and returns the rows that walk on.
func loopWatch(c loopConsts[*Node], s loopVals[*Node], next *loopVals[*Node], grad, alive *Node, earlyStop bool) *Node {
	g := s.t.Graph()
	r := s.cur.Shape().Dimensions[0]
	p := ConvertDType(next.lastP, dtypes.Float64)
	thr := c.threshold
	isStalled := GreaterThan(s.stalled, ZerosLike(s.stalled))
	stallStop := LogicalAnd(alive, LogicalAnd(isStalled, GreaterOrEqual(p, AddScalar(thr, stallMargin))))
	valid := GreaterOrEqual(p, thr)
	watching := LogicalAnd(alive, LogicalAnd(Not(isStalled), Not(valid)))
	logF := Log(Max(p, Scalar(g, dtypes.Float64, math.SmallestNonzeroFloat32)))
	open := Equal(s.winStep, ZerosLike(s.winStep))
	due := GreaterOrEqual(Sub(s.t, s.winStep), Scalar(g, dtypes.Int32, stallWindow))
	gradNorm := Sqrt(ReduceSum(Square(ConvertDType(grad, dtypes.Float64)), 1))
	moving := LogicalOr(GreaterOrEqual(Sub(logF, s.winLogF), Scalar(g, dtypes.Float64, stallRise)),
		GreaterThan(gradNorm, MulScalar(p, stallGradient)))
	restart := LogicalAnd(watching, LogicalOr(open, LogicalAnd(Not(open), LogicalAnd(due, moving))))
	stallNow := LogicalAnd(watching, LogicalAnd(Not(open), LogicalAnd(due, Not(moving))))
	tRow := BroadcastToDims(s.t, r)
	next.winStep = pick(LogicalAnd(alive, LogicalAnd(Not(isStalled), valid)), ZerosLike(s.winStep), pick(restart, tRow, s.winStep))
	next.winLogF = pick(restart, logF, s.winLogF)
	next.stalled = pick(stallNow, tRow, s.stalled)
	next.lam = pick(stallNow, Mul(s.lam, Const(g, [][]float32{{1, 0, 1}})), s.lam) // λ2 = 0 once stalled
	if !earlyStop {
		return LogicalAnd(alive, Not(stallStop))
	}
	plain := LogicalAnd(alive, LogicalAnd(Not(stallStop), Not(stallNow))) // the early stop's rows
	run := pick(valid, AddScalar(s.validRun, 1), ZerosLike(s.validRun))
	next.validRun = pick(plain, run, s.validRun)
	early := LogicalAnd(plain, GreaterOrEqual(run, BroadcastToDims(c.earlyStop, r)))
	return LogicalAnd(alive, LogicalAnd(Not(stallStop), Not(early)))
}

// pick is onTrue in the rows [R] where b holds, onFalse in the others.
func pick(b, onTrue, onFalse *Node) *Node {
	if onTrue.Rank() > 1 {
		b = BroadcastToDims(ExpandAxes(b, -1), onTrue.Shape().Dimensions...)
	}
	return Where(b, onTrue, onFalse)
}

// keep writes the points recorded now (rec) whose index n is a multiple of stride into the
// kept buffer, at slot n/stride − n0/stride of their row (n0: the row's points when the
// execution began); the other rows write to their row's last slot, which is never read.
// The buffer is slot-major (slot k of row i at k·R + i), so that the rows of a batch, which
// mostly record the same slot at a step, write one contiguous block of it rather than one
// place in each row's stretch of a buffer of up to Batching.LoopKeptBytes (row-major, each
// element written would be a cache miss).
func (pr programs) keep(s loopVals[*Node], o stepOut, rec, n0, stride *Node) *Node {
	rows := s.cur.Shape().Dimensions[0]
	slots := s.kept.Shape().Dimensions[0] / rows // q+1
	g := s.cur.Graph()
	strideRow := BroadcastToDims(stride, rows)
	due := LogicalAnd(rec, Equal(Mod(s.n, strideRow), ZerosLike(s.n)))
	slot := Sub(Div(s.n, strideRow), Div(n0, strideRow))
	slot = Where(due, slot, BroadcastToDims(Scalar(g, dtypes.Int32, slots-1), rows))
	index := Add(MulScalar(slot, float64(rows)), Iota(g, shapes.Make(dtypes.Int32, rows), 0))
	col := func(x *Node) *Node { return ExpandAxes(x, -1) }
	point := Concatenate([]*Node{s.cur, col(ConvertDType(AddScalar(s.n, 1), dtypes.Float32)), col(o.p), col(o.unc), col(o.uncPaper)}, 1)
	return ScatterSum(s.kept, col(index), point, false, true)
}

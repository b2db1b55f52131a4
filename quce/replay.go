package quce

import (
	"context"
	"slices"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/quce-go/quce/internal/signature"
	"github.com/quce-go/quce/internal/whileloop"
)

// The replay engine: the step engine's steps, many per execution, with its bookkeeping
// replayed on the host.
//
// One execution runs a stretch of a batch's optimisation steps as a While over the step
// program (step, the same operations as a step execution), and returns what each step
// computed (F(τ|·), its gradient, L_ε in both forms, the interior gradients, the
// objective, the next point and the optimiser state). The host then replays the stretch
// step by step with walkRow, exactly as the step engine runs it after each execution: so
// the two walk the same paths, to the last bit wherever the backend's kernels do. What a
// step's bookkeeping can change is what the step engine's next execution would take anew:
// a row that stops or fails leaves the batch, whose other rows are unaffected (rows never
// mix), so the steps it walked on in the stretch are dropped; a row whose λ changed (a
// stall, watchStall) has walked on with the old λ, so it is taken back to that step and
// walks the rest in a stretch of its own. Stalls are rare (none among W-BC's test rows),
// so a search is usually one stretch.
//
// Against the step engine it saves each step's execution, its transfers and its
// arguments' conversions (which weigh on a one-row search, docs/SPEED.md); against
// the loop engine, whose bookkeeping runs as graph operations at every step, those
// operations (docs/SPEED.md). It pays in outputs: every step's come back to the host, where
// the step engine leaves the next point on the device, which makes it slower for large
// batches (EngineReplay keeps it to small ones). A 1000-step search of one row is one
// execution, plus the measurements of its first points and of its last.

// A replay execution's steps (replayStretch): a search of a batch in at most
// replayStretches executions, each returning at least replayMinOutBytes of per-step outputs
// and at most replayMaxOutBytes. The floor keeps small batches (up to 3 rows with the built-in
// W-BC networks and K = 3, 616 bytes a row and step) in one execution; the ceiling bounds the
// memory (a 1000-step search of 100 rows fits in four executions), and a batch whose steps
// need more memory than that takes more executions. A whole search in one large execution
// was slower than four smaller ones (its buffer zeroed and first
// touched, where four executions reuse one from the backend's pool).
const (
	replayStretches   = 4
	replayMinOutBytes = 2 << 20
	replayMaxOutBytes = 16 << 20
)

// replayStretch is the steps of one replay execution for a search of steps steps of a batch
// of rows rows whose per-step outputs take rowStepBytes a row (see the constants above).
func replayStretch(steps, rows, rowStepBytes int) int {
	perStep := rows * rowStepBytes
	stretch := max((steps+replayStretches-1)/replayStretches, replayMinOutBytes/perStep)
	return max(1, min(steps, stretch, replayMaxOutBytes/perStep))
}

// replayKey names a compiled replay program: the step kind, the rows and the steps it can
// hold.
type replayKey struct {
	kind        execKind
	rows, steps int
}

// replayIn are a replay program's inputs, by name: the batch as a step takes it (see
// stepVals; t the first step, from 1), and the last step to walk. T is *Node inside the
// program and a tensor or scalar outside.
type replayIn[T any] struct {
	prev, cur, target, x0, move, lo, hi, m, v, lam T
	lr, first, last                                T
}

func (in *replayIn[T]) fields() []*T {
	return []*T{&in.prev, &in.cur, &in.target, &in.x0, &in.move, &in.lo, &in.hi, &in.m, &in.v, &in.lam, &in.lr, &in.first, &in.last}
}

// replayConsts are what the replay program's steps read but never change, by name: the
// inputs of replayIn but the weights, which reach the loop split (splitLambdas, once before
// it rather than at every step).
type replayConsts struct {
	target, x0, move, lo, hi, lr, last *Node
	lam                                lambdas
}

func (c *replayConsts) fields() []**Node {
	return []**Node{&c.target, &c.x0, &c.move, &c.lo, &c.hi, &c.lr, &c.last, &c.lam.l1, &c.lam.l2, &c.lam.l3}
}

// replayState is the replay program's loop state, by name: the step t (from replayIn's
// first), the segment being walked, the optimiser state, the output buffer and the rows of
// the buffer the step writes ([R, 1], (t − first)·R + i for row i: carried and moved on by
// R at each step rather than computed from t: six operations fewer a step).
type replayState[T any] struct{ t, prev, cur, m, v, rec, index T }

func (s *replayState[T]) fields() []*T {
	return []*T{&s.t, &s.prev, &s.cur, &s.m, &s.v, &s.rec, &s.index}
}

// replayWidths are a step's outputs in a row of the program's buffer: first the scalars (F,
// L_ε in both forms, the objective), then the vectors of J inputs (the gradient, the interior
// gradients when the rule has them, the next point, the optimiser state m and v). One buffer,
// not one for each, saves a concatenation and a scatter a step.
func replayWidths(kind execKind, j int) (scalars, vectors int) {
	vectors = 4 * j
	if len(kind.rule.interiorNodes(kind.k)) > 0 {
		vectors += j
	}
	return 4, vectors
}

// replayRowStepBytes is the bytes of one row's outputs of one step (replayWidths).
func replayRowStepBytes(kind execKind, j int) int {
	scalars, vectors := replayWidths(kind, j)
	return 4 * (scalars + vectors)
}

// replayEngine walks a batch many steps an execution (see the file's comment).
type replayEngine struct{ pr programs }

func (replayEngine) name() string { return "replay" }

func (e replayEngine) walk(ctx context.Context, cfg Config, rows []*row, dev compute.DeviceNum, progress func(step int)) error {
	if err := measureStarts(ctx, cfg, e.pr, rows, dev); err != nil {
		return err
	}
	kind := execKind{optimise: true, opt: cfg.Optimizer, rule: cfg.Rule, k: cfg.K}
	rowStepBytes := replayRowStepBytes(kind, e.pr.numFeatures())
	next := make(map[*row]int, len(rows)) // each row's next step
	for _, r := range rows {
		next[r] = 1
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		// The active rows whose next step is the first to walk: all of them but for the rows
		// taken back after a stall.
		first := cfg.Steps + 1
		for _, r := range rows {
			if r.active && next[r] < first {
				first = next[r]
			}
		}
		if first > cfg.Steps {
			break
		}
		var group []*row
		for _, r := range rows {
			if r.active && next[r] == first {
				group = append(group, r)
			}
		}
		steps := replayStretch(cfg.Steps, len(group), rowStepBytes)
		if cfg.EarlyStop > 0 {
			// Rows that stop early would walk on to the stretch's end for nothing (with
			// -early-stop 5 most rows stop within the first hundred steps).
			steps = min(steps, max(cfg.Steps/loopEarlyStopExecutions, 1))
		}
		last := min(first+steps-1, cfg.Steps)
		if err := e.stretch(cfg, kind, group, first, last, steps, next, dev); err != nil {
			return err
		}
		if progress != nil {
			progress(last)
		}
	}
	return measure(ctx, cfg, e.pr, rows, cfg.Steps, dev)
}

// stretch runs steps first..last of rows in one execution of the program for capacity
// steps, replays them, and sets each row's next step.
func (e replayEngine) stretch(cfg Config, kind execKind, rows []*row, first, last, capacity int, next map[*row]int, dev compute.DeviceNum) error {
	pr := e.pr
	j, c, n := pr.numFeatures(), pr.clf.NumClasses(), len(rows)
	ex, release, err := pr.execs.get(execKey{replay: replayKey{kind: kind, rows: n, steps: capacity}}, func() (*Exec, error) {
		return named(NewExec(pr.backend, pr.replayGraph(kind, capacity)))(programReplay)
	})
	if err != nil {
		return err
	}
	defer release()
	zeros := make([]float32, j)
	in := replayIn[any]{
		prev:   batch(rows, j, func(r *row) []float32 { return r.prev }),
		cur:    batch(rows, j, func(r *row) []float32 { return r.cur }),
		target: batch(rows, c, func(r *row) []float32 { return r.onehot }),
		x0:     batch(rows, j, func(r *row) []float32 { return r.x0 }),
		move:   batch(rows, j, func(r *row) []float32 { return r.move }),
		lo:     batch(rows, j, func(r *row) []float32 { return r.lo }),
		hi:     batch(rows, j, func(r *row) []float32 { return r.hi }),
		m:      batch(rows, j, optState(0, zeros)), v: batch(rows, j, optState(1, zeros)),
		lam: batch(rows, 3, func(r *row) []float32 { return r.lam[:] }),
		lr:  float32(cfg.LearningRate), first: float32(first), last: float32(last),
	}
	args := signature.Args(in.fields())
	out, err := pr.run(ex, dev, args...)
	finalize(args)
	if err != nil {
		return engineError("replay", first, last, err)
	}
	// Read in place (the replay copies what the rows keep): the outputs are up to
	// replayMaxOutBytes.
	tensors.MustConstFlatData(out[0], func(rec []float32) {
		e.replay(cfg, kind, rows, first, last, rec, next)
	})
	finalize(out)
	return nil
}

// replay walks rows through steps first..last from the program's outputs (see
// replayGraph), as the step engine walks them after each step's execution.
func (e replayEngine) replay(cfg Config, kind execKind, rows []*row, first, last int, rec []float32, next map[*row]int) {
	j, n := e.pr.numFeatures(), len(rows)
	scalars, vectors := replayWidths(kind, j)
	width := scalars + vectors
	interior := vectors == 5*j
	walking := make([]bool, n)
	for i := range walking {
		walking[i] = true
	}
	// vec is the block of row i's vectors at slot k (0: gradient, 1: interior, then next
	// point, m, v, shifted by one without interior gradients).
	vec := func(slot, i, k int) []float32 {
		if !interior && k > 0 {
			k--
		}
		at := (slot*n+i)*width + scalars + k*j
		return rec[at : at+j]
	}
	for t := first; t <= last; t++ {
		slot := t - first
		// Fresh arrays for each step, as a step execution's outputs are: rows keep slices of them.
		var m measured
		m.p, m.unc, m.uncPaper = make([]float32, n), make([]float32, n), make([]float32, n)
		obj := make([]float32, n)
		m.grad = make([]float32, n*j)
		nx := make([]float32, n*j)
		if interior {
			m.interior = make([]float32, n*j)
		}
		for i := range n {
			s := rec[(slot*n+i)*width:]
			m.p[i], m.unc[i], m.uncPaper[i], obj[i] = s[0], s[1], s[2], s[3]
			copy(m.grad[i*j:], vec(slot, i, 0))
			if interior {
				copy(m.interior[i*j:], vec(slot, i, 1))
			}
			copy(nx[i*j:], vec(slot, i, 2))
		}
		for i, r := range rows {
			if !walking[i] {
				continue
			}
			if !walkRow(cfg, e.pr.features, r, i, t, m, obj[i], nx[i*j:(i+1)*j:(i+1)*j]) {
				continue
			}
			walking[i] = false
			if r.active {
				// λ changed: the row walks on from this step's point and optimiser state,
				// with its new λ, in a stretch of its own.
				r.opt = [2][]float32{slices.Clone(vec(slot, i, 3)), slices.Clone(vec(slot, i, 4))}
				next[r] = t + 1
			}
		}
	}
	for i, r := range rows {
		if walking[i] {
			slot := last - first
			r.opt = [2][]float32{slices.Clone(vec(slot, i, 3)), slices.Clone(vec(slot, i, 4))}
			next[r] = last + 1
		}
	}
}

// replayGraph builds the replay program for capacity steps: replayIn in; out, the steps'
// outputs [capacity·R, scalars + vectors] (replayWidths), slot-major (step t of row i at
// (t − first)·R + i), the slots after last left at zero.
func (pr programs) replayGraph(kind execKind, capacity int) func([]*Node) []*Node {
	return func(args []*Node) []*Node {
		var in replayIn[*Node]
		signature.Set(in.fields(), args)
		g := in.cur.Graph()
		r := in.cur.Shape().Dimensions[0]
		scalars, vectors := replayWidths(kind, pr.numFeatures())
		rec := Zeros(g, shapes.Make(dtypes.Float32, capacity*r, scalars+vectors))
		index := ExpandAxes(Iota(g, shapes.Make(dtypes.Int32, r), 0), -1)
		s0 := replayState[*Node]{t: in.first, prev: in.prev, cur: in.cur, m: in.m, v: in.v, rec: rec, index: index}
		// What the steps read but never change reaches the loop's closures as its consts
		// (package whileloop).
		c0 := replayConsts{target: in.target, x0: in.x0, move: in.move, lo: in.lo, hi: in.hi, lr: in.lr, last: in.last,
			lam: splitLambdas(in.lam)}
		unpack := func(state, consts []*Node) (s replayState[*Node], c replayConsts) {
			signature.Set(s.fields(), state)
			signature.Set(c.fields(), consts)
			return s, c
		}
		out := whileloop.Build(signature.Values(s0.fields()), signature.Values(c0.fields()),
			func(state, consts []*Node) []*Node {
				s, c := unpack(state, consts)
				return []*Node{LessOrEqual(s.t, c.last)}
			},
			func(state, consts []*Node) []*Node {
				s, c := unpack(state, consts)
				o := pr.step(kind, stepIn{prev: s.prev, xc: s.cur, target: c.target, x0: c.x0, move: c.move, lo: c.lo, hi: c.hi,
					m: s.m, v: s.v, t: s.t, lr: c.lr}, c.lam)
				col := func(x *Node) *Node { return ExpandAxes(x, -1) }
				parts := []*Node{col(o.p), col(o.unc), col(o.uncPaper), col(o.obj), o.grad}
				if o.interior != nil {
					parts = append(parts, o.interior)
				}
				next := replayState[*Node]{t: AddScalar(s.t, 1), prev: s.cur, cur: o.next, m: o.m, v: o.v,
					rec:   ScatterSum(s.rec, s.index, Concatenate(append(parts, o.next, o.m, o.v), 1), false, true),
					index: AddScalar(s.index, float64(r))}
				return signature.Values(next.fields())
			})
		var end replayState[*Node]
		signature.Set(end.fields(), out)
		return []*Node{end.rec}
	}
}

package eval

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/signature"
	"github.com/quce-go/quce/quce"
)

// AGI is the individual AGI path: x ← x − η·sign(∇ log F(f(x)|x)) until the class flips
// or the step limit is reached.
const AGI Method = "agi"

type agiRunner struct{}

func init() { register(agiRunner{}) }

func (agiRunner) about() about {
	return about{name: AGI, title: "AGI", label: "AGI", color: okabeIto.bluishGreen, order: 40, inDefault: true,
		path: true, ownCounterfactual: true}
}

// run walks AGI from every instance inside its box, ends each path at the legal row nearest
// its end, measures the paths with the explainer's attribution and records in the report how
// many runs flipped.
func (agiRunner) run(ctx context.Context, s *split) ([]*outcome, error) {
	s.logf("eval: %s: AGI on %d instances (η %v, at most %d steps)", s.name, len(s.xs), s.o.AGI.Eta, s.o.AGI.MaxSteps)
	e := s.d.Explainer
	var legal func(i int, pt []float64) ([]float64, error)
	if slices.ContainsFunc(e.Columns(), func(c data.Column) bool { return c.Type != data.Continuous }) {
		legal = func(i int, pt []float64) ([]float64, error) { return e.Legalize(s.queries[i], pt) }
	}
	agi, err := s.mdl.agi(ctx, legal, s.boxes, s.targets, s.o.AGI, s.o.Config.Threshold)
	if err != nil {
		return nil, fmt.Errorf("eval: AGI on the %s split: %w", s.name, err)
	}
	paths := make([][][]float64, len(agi))
	for i, p := range agi {
		paths[i] = p.Points
		end := p.Points[len(p.Points)-1]
		legal, err := e.Legalize(s.queries[i], end)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(legal, end) {
			// The end is projected onto the nearest legal row as QUCE's is, and the
			// projection walked in pieces as the explainer walks its own, so the metrics
			// are the legal row's and the attribution still integrates to it.
			paths[i] = append(slices.Clip(p.Points), straightLine(end, legal, projectPieces+1)[1:]...)
		}
	}
	ex, err := e.ExplainPaths(ctx, s.cfg, s.queries, paths)
	if err != nil {
		return nil, fmt.Errorf("eval: measuring the AGI paths on the %s split: %w", s.name, err)
	}
	outs := pathOutcomes(s.base, s.xs, ex, s.o.Config.Threshold, "AGI reached the other class, but the legal row nearest its end is ")
	if s.rep.AGIFlipped == nil {
		s.rep.AGIFlipped = map[string]int{}
	}
	s.rep.AGIFlipped[s.name] = agiFailures(agi, outs, s.o.Config.Threshold)
	return outs, nil
}

// agiFailures says in each outcome why its AGI run has no valid result, and returns how many
// runs flipped.
func agiFailures(agi []*AGIPath, outs []*outcome, threshold float64) (flipped int) {
	for i, p := range agi {
		oc := outs[i]
		oc.res.Steps = p.Steps // the projection's pieces are no AGI steps
		switch {
		case p.Failure != "":
			oc.res.Valid = false
			oc.res.Failure = "AGI stopped: " + p.Failure
		case p.Flipped:
			flipped++
		case !oc.measured:
			oc.res.Failure = fmt.Sprintf("AGI did not reach the other class in %d steps; %s", p.Steps, oc.res.Failure)
		default:
			oc.res.Valid = false
			oc.res.Failure = fmt.Sprintf("AGI did not reach the other class in %d steps (F(τ|·) = %.3g < ϑ = %v at the last point)", p.Steps, p.ProbEnd, threshold)
		}
	}
	return flipped
}

// projectPieces is the number of straight pieces in which AGI's end is walked to the nearest
// legal row: as many as the explainer walks its own projection in, where the attribution's
// integration error stays below 1e-3.
const projectPieces = 8

// AGIConfig holds the settings of the individual AGI baseline.
type AGIConfig struct {
	Eta      float64 `json:"eta"`       // η: the size of each signed-gradient step (standardised units)
	MaxSteps int     `json:"max_steps"` // the step limit
}

// DefaultAGIConfig is η = 0.01, at most 1000 steps (docs/METHOD.md#baselines).
func DefaultAGIConfig() AGIConfig { return AGIConfig{Eta: 0.01, MaxSteps: 1000} }

// Validate reports the first bad setting.
func (c AGIConfig) Validate() error {
	if !(c.Eta > 0) || math.IsInf(c.Eta, 0) {
		return fmt.Errorf("eval: AGI step size η = %v; fix: use a positive value such as 0.01", c.Eta)
	}
	if c.MaxSteps < 1 {
		return fmt.Errorf("eval: AGI step limit = %d; fix: use at least 1 (1000 is the default)", c.MaxSteps)
	}
	return nil
}

// AGIPath is the result of AGI for one instance.
type AGIPath struct {
	Points    [][]float64 // x = Points[0], then one point per step (standardised)
	Original  int         // f(x): the class the path moves away from
	Target    int         // τ: the class the path moves towards
	Flipped   bool        // F(τ|last point) ≥ ϑ: the run reached the target class
	Steps     int         // steps taken (len(Points) − 1)
	ProbStart float64     // F(τ|x)
	// ProbEnd is F(τ|last point); with discrete columns (Run on mixed data), F(τ|·) at the
	// legal row nearest the last point, which Flipped then refers to.
	ProbEnd float64
	// Failure says why the run stopped early: the model's output or gradient was not finite
	// (the path then ends at its last finite point, and it never flips).
	Failure string
}

// model runs the classifier for the baselines: its class probabilities (quce.ClassProbs:
// a row where the model's output is not finite gets non-finite probabilities, which the
// baselines count as that row's failure) and the AGI step, in a graph compiled on first use.
// It is safe for concurrent use.
type model struct {
	b     compute.Backend
	clf   *quce.Classifier
	probs *quce.ClassProbs

	mu   sync.Mutex
	step *graph.Exec
}

func newModel(b compute.Backend, clf *quce.Classifier) *model {
	return &model{b: b, clf: clf, probs: quce.NewClassProbs(b, clf)}
}

// stepExec is the compiled AGI step (agiStepGraph).
func (m *model) stepExec() (*graph.Exec, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.step == nil {
		ex, err := graph.NewExec(m.b, m.agiStepGraph)
		if err != nil {
			return nil, err
		}
		m.step = ex
	}
	return m.step, nil
}

// startingClasses returns the class probabilities of the rows xs where a baseline starts,
// and their target classes (targetsFor).
func (m *model) startingClasses(ctx context.Context, xs [][]float64, targets []int, threshold float64) (probs [][]float64, tgt []int, err error) {
	if probs, err = m.probs.At(ctx, xs); err != nil {
		return nil, nil, err
	}
	if tgt, err = targetsFor(probs, targets, threshold); err != nil {
		return nil, nil, err
	}
	return probs, tgt, nil
}

// targetsFor resolves the target class of each row: targets[i] when given (≥ 0), else the
// default target (quce.DefaultTarget) of the row's class probabilities probs[i].
func targetsFor(probs [][]float64, targets []int, threshold float64) ([]int, error) {
	if targets != nil && len(targets) != len(probs) {
		return nil, fmt.Errorf("eval: %d target classes for %d rows", len(targets), len(probs))
	}
	out := make([]int, len(probs))
	for i, p := range probs {
		out[i] = quce.DefaultTarget(p, threshold)
		if targets != nil && targets[i] >= 0 {
			if targets[i] >= len(p) {
				return nil, fmt.Errorf("eval: row %d: target class %d of a %d-class model", i, targets[i], len(p))
			}
			out[i] = targets[i]
		}
	}
	return out, nil
}

// agiStepVals are the AGI step program's inputs, by name: the points x [R,J], target [R,C]
// (one-hot τ), active [R] (1 or 0), eta (scalar), move [R,J] (1 where an input may move, 0
// where it is frozen), lo and hi [R,J] (the box). T is *graph.Node inside the program, an
// argument outside.
type agiStepVals[T any] struct{ x, target, active, eta, move, lo, hi T }

func (in *agiStepVals[T]) fields() []*T {
	return []*T{&in.x, &in.target, &in.active, &in.eta, &in.move, &in.lo, &in.hi}
}

// agiStepOuts are its outputs, by name: the moved points [R,J] and F(c|·) [R,C] there.
type agiStepOuts[T any] struct{ next, probs T }

func (o *agiStepOuts[T]) fields() []*T { return []*T{&o.next, &o.probs} }

// agiStepGraph builds the AGI step program, agiStepVals in, agiStepOuts out: the moved
// points clamp(x + η·active·move·sign(∇ log F(τ|x)), lo, hi) and F(c|·) there. log F(τ|·) is
// the log-softmax (or −softplus) form, whose gradient does not vanish where F(τ|x) is tiny,
// as it is at the start of the path.
func (m *model) agiStepGraph(params []*graph.Node) []*graph.Node {
	var in agiStepVals[*graph.Node]
	signature.Set(in.fields(), params)
	grad := graph.Gradient(graph.ReduceAllSum(m.clf.TargetLogProb(in.x, in.target)), in.x)[0]
	step := graph.Mul(graph.Mul(graph.Sign(grad), in.move), graph.ExpandAxes(graph.Mul(in.active, in.eta), -1))
	// Min(Max()) as the explainer's search clamps (ONNX Runtime lacks Clamp with tensor
	// bounds); with move 1 and an open box (±Inf) the step is exactly the unconstrained one.
	out := agiStepOuts[*graph.Node]{next: graph.Min(graph.Max(graph.Add(in.x, step), in.lo), in.hi)}
	out.probs = graph.Exp(m.clf.LogProbs(out.next))
	return signature.Values(out.fields())
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// RunAGI runs the individual AGI baseline on standardised rows xs, all rows at once: every
// row takes signed-gradient steps x ← x + η·sign(∇ log F(τ|x)) towards its target class τ
// (targets[i], or the default target when targets is nil or targets[i] < 0) and stops on its
// own as soon as F(τ|x) ≥ ϑ, or after cfg.MaxSteps steps. No step is taken from a point
// already in class τ. For a binary model this is the step away from the original class.
// Every feature is free and unbounded; Run keeps AGI to each instance's constraints (see
// Options.Constraints).
func RunAGI(ctx context.Context, b compute.Backend, clf *quce.Classifier, xs [][]float64, targets []int, cfg AGIConfig, threshold float64) ([]*AGIPath, error) {
	boxes := make([]box, len(xs))
	for i, x := range xs {
		boxes[i] = openBox(x)
	}
	return newModel(b, clf).agi(ctx, nil, boxes, targets, cfg, threshold)
}

// agi is RunAGI for instances with boxes: frozen inputs do not move, and every step is
// clamped into the box. With discrete columns (legal, the nearest legal row to instance i's
// point, is then set: see quce.Explainer.Legalize) a run reaches τ when that row does: that
// row is the counterfactual reported, and a relaxed point that has just crossed ϑ mostly
// rounds back to a row that has not.
func (m *model) agi(ctx context.Context, legal func(i int, pt []float64) ([]float64, error), boxes []box, targets []int, cfg AGIConfig, threshold float64) ([]*AGIPath, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !(threshold > 0 && threshold < 1) {
		return nil, fmt.Errorf("eval: threshold %v; fix: use a probability strictly between 0 and 1", threshold)
	}
	if len(boxes) == 0 {
		return nil, nil
	}
	w, err := m.newAGIWalk(ctx, boxes, targets, threshold)
	if err != nil {
		return nil, err
	}
	ex, err := m.stepExec()
	if err != nil {
		return nil, err
	}
	for step := 1; step <= cfg.MaxSteps && w.running(); step++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pts, probs, err := w.step(ex, cfg.Eta)
		if err != nil {
			return nil, fmt.Errorf("eval: AGI step %d: %w", step, err)
		}
		if legal != nil {
			// With discrete columns a run is judged at the legal row nearest its point.
			rows := make([][]float64, len(pts))
			for i, pt := range pts {
				if rows[i], err = legal(i, pt); err != nil {
					return nil, err
				}
			}
			if probs, err = m.probs.At(ctx, rows); err != nil {
				return nil, fmt.Errorf("eval: AGI step %d: %w", step, err)
			}
		}
		w.advance(step, pts, probs, threshold)
	}
	return w.paths, nil
}

// agiWalk is the state of AGI's runs: the current points and, per run, whether it still
// moves, as the step graph takes them.
type agiWalk struct {
	paths                []*AGIPath
	n, j, c              int
	cur, active          []float32 // [n·j] the current points, [n] 1 while a run moves
	target, move, lo, hi *tensors.Tensor
}

// newAGIWalk starts a run from each box's instance towards its target class.
func (m *model) newAGIWalk(ctx context.Context, boxes []box, targets []int, threshold float64) (*agiWalk, error) {
	xs := make([][]float64, len(boxes))
	for i, b := range boxes {
		xs[i] = b.x
	}
	probs0, tgt, err := m.startingClasses(ctx, xs, targets, threshold)
	if err != nil {
		return nil, err
	}
	n, j, c := len(xs), m.clf.NumFeatures(), m.clf.NumClasses()
	w := &agiWalk{paths: make([]*AGIPath, n), n: n, j: j, c: c, cur: make([]float32, n*j), active: make([]float32, n)}
	onehot := make([]float32, n*c)
	move, lo, hi := make([]float32, n*j), make([]float32, n*j), make([]float32, n*j)
	for i, x := range xs {
		p := &AGIPath{Points: [][]float64{append([]float64(nil), x...)}, Original: quce.PredictedClass(probs0[i], threshold), Target: tgt[i]}
		p.ProbStart = probs0[i][tgt[i]]
		p.ProbEnd = p.ProbStart
		p.Flipped = p.ProbEnd >= threshold
		w.paths[i] = p
		onehot[i*c+tgt[i]] = 1
		if !p.Flipped {
			w.active[i] = 1
		}
		b := boxes[i]
		for f, v := range x {
			w.cur[i*j+f] = float32(v)
			if b.move[f] {
				move[i*j+f] = 1
			}
			lo[i*j+f], hi[i*j+f] = float32(b.slo[f]), float32(b.shi[f])
		}
	}
	w.target = tensors.FromFlatDataAndDimensions(onehot, n, c)
	w.move, w.lo, w.hi = tensors.FromFlatDataAndDimensions(move, n, j), tensors.FromFlatDataAndDimensions(lo, n, j), tensors.FromFlatDataAndDimensions(hi, n, j)
	return w, nil
}

// running reports whether any run still moves.
func (w *agiWalk) running() bool {
	for _, a := range w.active {
		if a > 0 {
			return true
		}
	}
	return false
}

// step takes one step of every moving run with ex (agiStepGraph) and returns the points
// reached and F(c|·) there; the step graph's results are freed.
func (w *agiWalk) step(ex *graph.Exec, eta float64) ([][]float64, [][]float64, error) {
	in := agiStepVals[any]{
		x:      tensors.FromFlatDataAndDimensions(append([]float32(nil), w.cur...), w.n, w.j),
		target: w.target,
		active: tensors.FromFlatDataAndDimensions(append([]float32(nil), w.active...), w.n),
		eta:    float32(eta), move: w.move, lo: w.lo, hi: w.hi,
	}
	res, err := ex.Call(signature.Args(in.fields())...)
	if err != nil {
		return nil, nil, err
	}
	var out agiStepOuts[*tensors.Tensor]
	signature.Set(out.fields(), res)
	next := tensors.MustCopyFlatData[float32](out.next)
	probs := tensors.MustCopyFlatData[float32](out.probs)
	for _, t := range res {
		t.FinalizeAll()
	}
	return rows64(next, w.n, w.j), rows64(probs, w.n, w.c), nil
}

// rows64 is the flat float32 data of an [n, k] tensor as n float64 rows.
func rows64(flat []float32, n, k int) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, k)
		for f := range out[i] {
			out[i][f] = float64(flat[i*k+f])
		}
	}
	return out
}

// advance moves every moving run to its point of this step, judged by F(τ|·) in probs: a
// run stops at the flip, and fails (ending at its last finite point) where the point or its
// probability is not finite.
func (w *agiWalk) advance(step int, pts, probs [][]float64, threshold float64) {
	for i, p := range w.paths {
		if w.active[i] == 0 {
			continue
		}
		pr := probs[i][p.Target]
		if !allFinite(pts[i]) || math.IsNaN(pr) || math.IsInf(pr, 0) {
			p.Failure = fmt.Sprintf("the model's output or gradient was not finite at step %d", step)
			w.active[i] = 0
			continue
		}
		for f, v := range pts[i] {
			w.cur[i*w.j+f] = float32(v)
		}
		p.Points = append(p.Points, pts[i])
		p.Steps = step
		p.ProbEnd = pr
		if p.ProbEnd >= threshold {
			p.Flipped = true
			w.active[i] = 0
		}
	}
}

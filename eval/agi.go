package eval

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/quce-go/quce/quce"
)

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

// model runs the classifier in graphs of its own: class probabilities in fixed-size chunks
// (one compiled shape) and the AGI step. It is safe for concurrent use.
type model struct {
	b   compute.Backend
	clf *quce.Classifier

	mu    sync.Mutex
	probs *graph.Exec
	step  *graph.Exec
}

func newModel(b compute.Backend, clf *quce.Classifier) *model {
	return &model{b: b, clf: clf}
}

// chunk is the fixed row count of probability executions.
const chunk = 4096

func (m *model) exec(slot **graph.Exec, fn any) (*graph.Exec, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if *slot == nil {
		var (
			ex  *graph.Exec
			err error
		)
		switch f := fn.(type) {
		case func(*graph.Node) *graph.Node:
			ex, err = graph.NewExec(m.b, f)
		case func([]*graph.Node) []*graph.Node:
			ex, err = graph.NewExec(m.b, f)
		}
		if err != nil {
			return nil, err
		}
		*slot = ex
	}
	return *slot, nil
}

// classProbs returns F(c|x) for every class at standardised points (float64 in, float32
// model), in chunks of one compiled shape.
func (m *model) classProbs(ctx context.Context, pts [][]float64) ([][]float64, error) {
	for i, pt := range pts {
		if j := m.clf.NumFeatures(); len(pt) != j {
			return nil, fmt.Errorf("eval: point %d has %d features, the classifier has %d", i, len(pt), j)
		}
	}
	out := make([][]float64, 0, len(pts))
	for start := 0; start < len(pts); start += chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		probs, err := m.probsPadded(pts[start:min(start+chunk, len(pts))], chunk)
		if err != nil {
			return nil, err
		}
		out = append(out, probs...)
	}
	return out, nil
}

// probsPadded runs the classifier once on pts (rows of the classifier's width) padded with
// zero rows to size rows (the compiled shape).
func (m *model) probsPadded(pts [][]float64, size int) ([][]float64, error) {
	ex, err := m.exec(&m.probs, func(x *graph.Node) *graph.Node { return graph.Exp(m.clf.LogProbs(x)) })
	if err != nil {
		return nil, err
	}
	j, c := m.clf.NumFeatures(), m.clf.NumClasses()
	buf := make([]float32, size*j)
	for i, pt := range pts {
		for f, v := range pt {
			buf[i*j+f] = float32(v)
		}
	}
	res, err := ex.Call(tensors.FromFlatDataAndDimensions(buf, size, j))
	if err != nil {
		return nil, fmt.Errorf("eval: running the classifier: %w", err)
	}
	p := tensors.MustCopyFlatData[float32](res[0])
	out := make([][]float64, len(pts))
	for i := range out {
		out[i] = make([]float64, c)
		for k := range out[i] {
			out[i][k] = float64(p[i*c+k])
		}
	}
	return out, nil
}

// targets resolves the target class of each row: targets[i] when given (≥ 0), else the
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

// agiStepGraph: inputs x [R,J], target [R,C] (one-hot τ), active [R] (1 or 0), eta (scalar),
// move [R,J] (1 where an input may move, 0 where it is frozen), lo and hi [R,J] (the box).
// Outputs the moved points clamp(x + η·active·move·sign(∇ log F(τ|x)), lo, hi) and F(c|·)
// [R,C] there. log F(τ|·) is the log-softmax (or −softplus) form, whose gradient does not
// vanish where F(τ|x) is tiny, as it is at the start of the path.
func (m *model) agiStepGraph(in []*graph.Node) []*graph.Node {
	x, target, active, eta, move, lo, hi := in[0], in[1], in[2], in[3], in[4], in[5], in[6]
	grad := graph.Gradient(graph.ReduceAllSum(m.clf.TargetLogProb(x, target)), x)[0]
	step := graph.Mul(graph.Mul(graph.Sign(grad), move), graph.ExpandAxes(graph.Mul(active, eta), -1))
	// Min(Max()) as the explainer's search clamps (ONNX Runtime lacks Clamp with tensor
	// bounds); with move 1 and an open box (±Inf) the step is exactly the unconstrained one.
	next := graph.Min(graph.Max(graph.Add(x, step), lo), hi)
	return []*graph.Node{next, graph.Exp(m.clf.LogProbs(next))}
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
	xs := make([][]float64, len(boxes))
	for i, b := range boxes {
		xs[i] = b.x
	}
	probs0, err := m.classProbs(ctx, xs)
	if err != nil {
		return nil, err
	}
	tgt, err := targetsFor(probs0, targets, threshold)
	if err != nil {
		return nil, err
	}
	ex, err := m.exec(&m.step, m.agiStepGraph)
	if err != nil {
		return nil, err
	}
	n, j, c := len(xs), m.clf.NumFeatures(), m.clf.NumClasses()
	paths := make([]*AGIPath, n)
	cur := make([]float32, n*j)
	onehot := make([]float32, n*c)
	active := make([]float32, n)
	move, lo, hi := make([]float32, n*j), make([]float32, n*j), make([]float32, n*j)
	for i, x := range xs {
		p := &AGIPath{Points: [][]float64{append([]float64(nil), x...)}, Original: quce.PredictedClass(probs0[i], threshold), Target: tgt[i]}
		p.ProbStart = probs0[i][tgt[i]]
		p.ProbEnd = p.ProbStart
		p.Flipped = p.ProbEnd >= threshold
		paths[i] = p
		onehot[i*c+tgt[i]] = 1
		if !p.Flipped {
			active[i] = 1
		}
		b := boxes[i]
		for f, v := range x {
			cur[i*j+f] = float32(v)
			if b.move[f] {
				move[i*j+f] = 1
			}
			lo[i*j+f], hi[i*j+f] = float32(b.slo[f]), float32(b.shi[f])
		}
	}
	discrete := legal != nil
	targetT := tensors.FromFlatDataAndDimensions(onehot, n, c)
	moveT, loT, hiT := tensors.FromFlatDataAndDimensions(move, n, j), tensors.FromFlatDataAndDimensions(lo, n, j), tensors.FromFlatDataAndDimensions(hi, n, j)
	for step := 1; step <= cfg.MaxSteps; step++ {
		running := false
		for _, a := range active {
			running = running || a > 0
		}
		if !running {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := ex.Call(tensors.FromFlatDataAndDimensions(append([]float32(nil), cur...), n, j), targetT,
			tensors.FromFlatDataAndDimensions(append([]float32(nil), active...), n), float32(cfg.Eta), moveT, loT, hiT)
		if err != nil {
			return nil, fmt.Errorf("eval: AGI step %d: %w", step, err)
		}
		next := tensors.MustCopyFlatData[float32](res[0])
		probs := tensors.MustCopyFlatData[float32](res[1])
		pts := make([][]float64, n)
		for i := range pts {
			pts[i] = make([]float64, j)
			for f := range pts[i] {
				pts[i][f] = float64(next[i*j+f])
			}
		}
		var legalProbs [][]float64
		if discrete {
			rows := make([][]float64, n)
			for i, pt := range pts {
				if rows[i], err = legal(i, pt); err != nil {
					return nil, err
				}
			}
			// All rows every step, so one compiled shape serves the run.
			if legalProbs, err = m.probsPadded(rows, n); err != nil {
				return nil, fmt.Errorf("eval: AGI step %d: %w", step, err)
			}
		}
		for i, p := range paths {
			if active[i] == 0 {
				continue
			}
			pr := float64(probs[i*c+p.Target])
			if discrete {
				pr = legalProbs[i][p.Target]
			}
			if !allFinite(pts[i]) || math.IsNaN(pr) || math.IsInf(pr, 0) {
				p.Failure = fmt.Sprintf("the model's output or gradient was not finite at step %d", step)
				active[i] = 0
				continue
			}
			copy(cur[i*j:(i+1)*j], next[i*j:(i+1)*j])
			p.Points = append(p.Points, pts[i])
			p.Steps = step
			p.ProbEnd = pr
			if p.ProbEnd >= threshold {
				p.Flipped = true
				active[i] = 0
			}
		}
	}
	return paths, nil
}

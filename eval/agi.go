package eval

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/quce-go/quce/classifier"
)

// AGIConfig holds the settings of the individual AGI baseline.
type AGIConfig struct {
	Eta      float64 `json:"eta"`       // η: the size of each signed-gradient step (standardised units)
	MaxSteps int     `json:"max_steps"` // the step limit
}

// DefaultAGIConfig is SPEC.md's η = 0.01, at most 1000 steps.
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
	Flipped   bool        // F(τ|last point) ≥ ϑ with τ = 1 − f(x): the run reached the other class
	Steps     int         // steps taken (len(Points) − 1)
	ProbStart float64     // F(τ|x)
	ProbEnd   float64     // F(τ|last point)
}

// model runs the classifier in graphs of its own: logits in fixed-size chunks (one compiled
// shape) and the AGI step. It is safe for concurrent use.
type model struct {
	b   compute.Backend
	clf *classifier.Classifier

	mu    sync.Mutex
	logit *graph.Exec
	step  *graph.Exec
}

func newModel(b compute.Backend, clf *classifier.Classifier) *model {
	return &model{b: b, clf: clf}
}

// chunk is the fixed row count of logit executions.
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

// logits returns the classifier's logit at standardised points (float64 in, float32 model).
func (m *model) logits(ctx context.Context, pts [][]float64) ([]float64, error) {
	ex, err := m.exec(&m.logit, func(x *graph.Node) *graph.Node {
		return classifier.Logit(m.clf.Net.Consts(x.Graph()), x)
	})
	if err != nil {
		return nil, err
	}
	j := m.clf.NumFeatures()
	out := make([]float64, 0, len(pts))
	for start := 0; start < len(pts); start += chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+chunk, len(pts))
		buf := make([]float32, chunk*j)
		for i := start; i < end; i++ {
			if len(pts[i]) != j {
				return nil, fmt.Errorf("eval: point %d has %d features, the classifier has %d", i, len(pts[i]), j)
			}
			for f, v := range pts[i] {
				buf[(i-start)*j+f] = float32(v)
			}
		}
		res, err := ex.Call(tensors.FromFlatDataAndDimensions(buf, chunk, j))
		if err != nil {
			return nil, fmt.Errorf("eval: running the classifier: %w", err)
		}
		l := tensors.MustCopyFlatData[float32](res[0])
		for i := 0; i < end-start; i++ {
			out = append(out, float64(l[i]))
		}
	}
	return out, nil
}

// probClass returns F(class_i | pts_i) for each point, computed in float64 from the logit.
func (m *model) probClass(ctx context.Context, pts [][]float64, class []int) ([]float64, error) {
	l, err := m.logits(ctx, pts)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(l))
	for i, z := range l {
		out[i] = probOf(z, class[i])
	}
	return out, nil
}

// probOf is F(class | x) = σ(±logit).
func probOf(logit float64, class int) float64 {
	if class == 0 {
		logit = -logit
	}
	return 1 / (1 + math.Exp(-logit))
}

// agiStepGraph: inputs x [R,J], s [R] (+1 when f(x) = 1, −1 when 0), active [R] (1 or 0),
// eta (scalar). Outputs the moved points x − η·active·sign(∇ s·logit(x)) and their logits.
// The gradient of log F(f(x)|x) = log σ(s·logit) is (1 − σ)·s·∇logit, whose sign is that of
// s·∇logit; using the logit directly keeps the sign when σ saturates to 1 in float32.
func (m *model) agiStepGraph(in []*graph.Node) []*graph.Node {
	x, s, active, eta := in[0], in[1], in[2], in[3]
	params := m.clf.Net.Consts(x.Graph())
	score := graph.Mul(classifier.Logit(params, x), s)
	grad := graph.Gradient(graph.ReduceAllSum(score), x)[0]
	move := graph.Mul(graph.Sign(grad), graph.ExpandAxes(graph.Mul(active, eta), -1))
	next := graph.Sub(x, move)
	return []*graph.Node{next, classifier.Logit(params, next)}
}

// RunAGI runs the individual AGI baseline on standardised rows xs, all rows at once: every
// row takes signed-gradient steps x ← x − η·sign(∇ log F(f(x)|x)) away from its original
// class f(x) (at threshold ϑ) and stops on its own as soon as F(τ|x) ≥ ϑ, τ = 1 − f(x), or
// after cfg.MaxSteps steps. No step is taken from a point already in class τ.
func RunAGI(ctx context.Context, b compute.Backend, clf *classifier.Classifier, xs [][]float64, cfg AGIConfig, threshold float64) ([]*AGIPath, error) {
	return newModel(b, clf).agi(ctx, xs, cfg, threshold)
}

func (m *model) agi(ctx context.Context, xs [][]float64, cfg AGIConfig, threshold float64) ([]*AGIPath, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !(threshold > 0 && threshold < 1) {
		return nil, fmt.Errorf("eval: threshold %v; fix: use a probability strictly between 0 and 1", threshold)
	}
	if len(xs) == 0 {
		return nil, nil
	}
	logit0, err := m.logits(ctx, xs)
	if err != nil {
		return nil, err
	}
	ex, err := m.exec(&m.step, m.agiStepGraph)
	if err != nil {
		return nil, err
	}
	n, j := len(xs), m.clf.NumFeatures()
	paths := make([]*AGIPath, n)
	cur := make([]float32, n*j)
	s := make([]float32, n)
	active := make([]float32, n)
	for i, x := range xs {
		orig := 0
		if probOf(logit0[i], 1) >= threshold {
			orig = 1
		}
		p := &AGIPath{Points: [][]float64{append([]float64(nil), x...)}, Original: orig}
		p.ProbStart = probOf(logit0[i], 1-orig)
		p.ProbEnd = p.ProbStart
		p.Flipped = p.ProbEnd >= threshold
		paths[i] = p
		s[i] = float32(2*orig - 1)
		if !p.Flipped {
			active[i] = 1
		}
		for f, v := range x {
			cur[i*j+f] = float32(v)
		}
	}
	sT := tensors.FromFlatDataAndDimensions(s, n)
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
		res, err := ex.Call(tensors.FromFlatDataAndDimensions(append([]float32(nil), cur...), n, j), sT,
			tensors.FromFlatDataAndDimensions(append([]float32(nil), active...), n), float32(cfg.Eta))
		if err != nil {
			return nil, fmt.Errorf("eval: AGI step %d: %w", step, err)
		}
		next := tensors.MustCopyFlatData[float32](res[0])
		logit := tensors.MustCopyFlatData[float32](res[1])
		for i, p := range paths {
			if active[i] == 0 {
				continue
			}
			pt := make([]float64, j)
			for f := range pt {
				pt[f] = float64(next[i*j+f])
			}
			copy(cur[i*j:(i+1)*j], next[i*j:(i+1)*j])
			p.Points = append(p.Points, pt)
			p.Steps = step
			p.ProbEnd = probOf(float64(logit[i]), 1-p.Original)
			if p.ProbEnd >= threshold {
				p.Flipped = true
				active[i] = 0
			}
		}
	}
	return paths, nil
}

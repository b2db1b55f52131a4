package quce

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/quce-go/quce/internal/signature"
)

// probabilities returns F(c|x) [rows][classes] for standardised rows, run by exec (an
// execution of classGraph) in fixed-size chunks (one compiled shape). The model's own outputs must be
// finite (a NaN or Inf is a *NonFiniteOutputError), unless tolerant is set: a row whose
// outputs are not finite then has the probabilities its log-probabilities give (NaN for a
// NaN output), for the caller to count as that row's failure. For a model declared to output probabilities it checks that its finite
// outputs are: values outside [0, 1] mean the outputs are logits (or something else), and
// explaining them as probabilities would be silently wrong.
func (c *Classifier) probabilities(ctx context.Context, exec func(args ...any) ([]*tensors.Tensor, error), pts [][]float32, tolerant bool) ([][]float64, error) {
	j, classes := c.NumFeatures(), c.NumClasses()
	out := make([][]float64, 0, len(pts))
	buf := make([]float32, probeChunk*j)
	for start := 0; start < len(pts); start += probeChunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+probeChunk, len(pts))
		clear(buf)
		for i := start; i < end; i++ {
			copy(buf[(i-start)*j:], pts[i])
		}
		res, err := exec(tensors.FromFlatDataAndDimensions(append([]float32(nil), buf...), probeChunk, j))
		if err != nil {
			return nil, fmt.Errorf("quce: running the model: %w", err)
		}
		var outs classOuts[*tensors.Tensor]
		signature.Set(outs.fields(), res)
		logp := tensors.MustCopyFlatData[float32](outs.logProbs)
		raw := tensors.MustCopyFlatData[float32](outs.raw)
		finalize(res)
		nOut := len(raw) / probeChunk
		for i := 0; i < end-start; i++ {
			for k, v := range raw[i*nOut : (i+1)*nOut] {
				if !finite(v) && !tolerant {
					return nil, &NonFiniteOutputError{Row: start + i, Output: k, Value: float64(v)}
				}
			}
			if c.output == Probabilities {
				for k, v := range raw[i*nOut : (i+1)*nOut] {
					if finite(v) && !(v >= -1e-6 && v <= 1+1e-6) {
						return nil, fmt.Errorf("quce: the model is declared to output probabilities, but it output %v (output %d), outside [0, 1]; fix: declare its outputs as logits (pipeline.Options.ModelOutput logit)", v, k)
					}
				}
			}
			p := make([]float64, classes)
			for k := range p {
				p[k] = math.Exp(float64(logp[i*classes+k]))
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// Predict returns F(c|x) [rows][classes], in the data's class order, for standardised rows,
// on backend b; it compiles its graph on every call (an Explainer keeps its own: see
// Explainer.Predict). It lets a model be scored before anything else is built, and returns
// a *NonFiniteOutputError when the model outputs a NaN or an infinity.
func (c *Classifier) Predict(b compute.Backend, xs [][]float64) ([][]float64, error) {
	pts := make([][]float32, len(xs))
	for i, x := range xs {
		if len(x) != c.NumFeatures() {
			return nil, fmt.Errorf("quce: row %d has %d features, the model %d; fix: pass rows with the model's columns", i, len(x), c.NumFeatures())
		}
		pts[i] = toF32(x)
	}
	ex, err := graph.NewExec(b, c.classGraph)
	if err != nil {
		return nil, err
	}
	defer ex.Finalize()
	return c.probabilities(context.Background(), ex.Exec, pts, false)
}

// ClassProbs computes a classifier's class probabilities F(c|x) on one backend with one
// graph, compiled on first use, for code that walks where the model may break (the
// evaluation's baselines): a row whose model output is not finite gets, instead of an
// error, the probabilities its log-probabilities give (NaN for a NaN output), so that the
// caller can count it as that row's failure (Explainer.Predict refuses such a row). It is
// safe for concurrent use.
type ClassProbs struct {
	b   compute.Backend
	clf *Classifier

	mu sync.Mutex
	ex *graph.Exec
}

// NewClassProbs returns the class probabilities of clf on backend b.
func NewClassProbs(b compute.Backend, clf *Classifier) *ClassProbs {
	return &ClassProbs{b: b, clf: clf}
}

// At returns F(c|x) [rows][classes] at standardised points, in the data's class order.
func (p *ClassProbs) At(ctx context.Context, xs [][]float64) ([][]float64, error) {
	pts := make([][]float32, len(xs))
	for i, x := range xs {
		if len(x) != p.clf.NumFeatures() {
			return nil, fmt.Errorf("quce: point %d has %d features, the model %d", i, len(x), p.clf.NumFeatures())
		}
		pts[i] = toF32(x)
	}
	p.mu.Lock()
	if p.ex == nil {
		ex, err := graph.NewExec(p.b, p.clf.classGraph)
		if err != nil {
			p.mu.Unlock()
			return nil, err
		}
		p.ex = ex
	}
	p.mu.Unlock()
	return p.clf.probabilities(ctx, p.ex.Exec, pts, true)
}

// classOuts are the class program's outputs at points [R,J], by name: log F(c|x) [R,C] and
// the model's own outputs [R,C] (to check that they are finite, and that declared
// probabilities are probabilities). T is *graph.Node inside the program, *tensors.Tensor
// outside.
type classOuts[T any] struct{ logProbs, raw T }

func (o *classOuts[T]) fields() []*T { return []*T{&o.logProbs, &o.raw} }

// classGraph builds the class program: points x [R,J] in, classOuts out.
func (c *Classifier) classGraph(x *graph.Node) []*graph.Node {
	out := classOuts[*graph.Node]{logProbs: c.LogProbs(x), raw: c.rawOutputs(x)}
	return signature.Values(out.fields())
}

// NonFiniteOutputError is a model's output that is NaN or infinite: the model is broken
// (NaN weights, an overflow), and an explanation of it would be NaN.
type NonFiniteOutputError struct {
	Row    int     // the row of the call
	Output int     // the model's output (in the model's order)
	Value  float64 // NaN, +Inf or −Inf
}

func (e *NonFiniteOutputError) Error() string {
	return fmt.Sprintf("quce: the model output %v (its output %d) for row %d; fix: check the model's weights for NaN or Inf, and that its inputs are in the units it takes", e.Value, e.Output, e.Row)
}

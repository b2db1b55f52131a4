package eval

import (
	"context"
	"fmt"

	"github.com/quce-go/quce/quce"
)

// QUCE is the QUCE search with the options' Config.
const QUCE Method = "quce"

type quceRunner struct{}

func (quceRunner) about() about {
	return about{name: QUCE, title: "QUCE", path: true, ownCounterfactual: true}
}

func (quceRunner) run(ctx context.Context, s *split) ([]*outcome, error) {
	return s.search(ctx, s.cfg, "QUCE")
}

// search runs the explainer's search (quce, quce-auto, wachter) with c on the split's
// instances; what names it in the progress line and in errors.
func (s *split) search(ctx context.Context, c quce.Config, what string) ([]*outcome, error) {
	s.logf("eval: %s: %s on %d instances (%d steps)", s.name, what, len(s.xs), c.Steps)
	ex, err := s.d.Explainer.Explain(ctx, c, s.queries)
	if err != nil {
		return nil, fmt.Errorf("eval: %s on the %s split: %w", what, s.name, err)
	}
	return pathOutcomes(s.base, s.xs, ex, s.o.Config.Threshold, ""), nil
}

// pathOutcomes turns explanations (one path each) into outcomes.
func pathOutcomes(base []InstanceResult, xs [][]float64, ex []*quce.Explanation, threshold float64, invalidPrefix string) []*outcome {
	out := make([]*outcome, len(ex))
	for i, e := range ex {
		p := e.Path0()
		r := base[i]
		r.Original, r.Target = e.PredictedClass, e.Target
		r.Valid, r.ProbEnd, r.Steps = p.Valid, p.ProbEnd, p.Steps
		r.Counterfactual = p.Counterfactual
		r.CounterfactualOriginal = p.CounterfactualOriginal
		r.Attribution = p.Attribution
		r.Auto = e.Auto
		r.Path = p.Points
		switch {
		case p.Failure != "":
			// A failed path has no counterfactual and no attribution (its numbers are NaN).
			r.Counterfactual, r.CounterfactualOriginal, r.Attribution = nil, nil, nil
			r.Failure = "failed: " + p.Failure
		case !p.Valid:
			r.Failure = fmt.Sprintf("%snot valid: F(τ|x_c) = %.3g < ϑ = %v", invalidPrefix, p.ProbEnd, threshold)
		}
		out[i] = &outcome{res: r, x: xs[i], path: p, measured: p.Failure == ""}
	}
	return out
}

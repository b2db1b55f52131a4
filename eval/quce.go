package eval

import (
	"context"
	"fmt"

	"github.com/quce-go/quce/quce"
)

// The methods that are the explainer's own search, each with a configuration of its own.
const (
	// QUCE is the QUCE search with the options' Config.
	QUCE Method = "quce"
	// QUCEAuto is the QUCE search with λ2 and λ3 chosen per instance (quce.Auto, grid
	// Options.Auto) under the plausibility bound of Options.PlausibilityQuantile.
	QUCEAuto Method = "quce-auto"
	// Wachter is the QUCE search with λ3 = 0 (no uncertainty term).
	Wachter Method = "wachter"
)

// searchRunner is a method that runs the explainer's search (quce.Explainer.Explain) with a
// configuration of its own.
type searchRunner struct {
	a      about
	config func(s *split) quce.Config
	what   func(c quce.Config) string // names the search in progress lines and errors
}

func init() {
	register(searchRunner{about{name: QUCE, title: "QUCE", label: "QUCE", color: okabeIto.blue, order: 10, inDefault: true,
		path: true, ownCounterfactual: true},
		func(s *split) quce.Config { return s.cfg }, func(quce.Config) string { return "QUCE" }})
	register(searchRunner{about{name: QUCEAuto, title: "QUCE (automatic λ)", label: "QUCE (auto λ)", aliases: []string{"auto", "quce_auto"},
		color: okabeIto.skyBlue, order: 20, inDefault: true, path: true, ownCounterfactual: true},
		func(s *split) quce.Config { return s.autoCfg },
		func(c quce.Config) string {
			return fmt.Sprintf("QUCE with automatic λ (%d candidates each)", len(c.Auto.Grid))
		}})
	register(searchRunner{about{name: Wachter, title: "Wachter (λ3=0)", label: "Wachter", color: okabeIto.reddishPurple, order: 50, inDefault: true,
		path: true, ownCounterfactual: true},
		func(s *split) quce.Config { return s.wachterCfg }, func(quce.Config) string { return "Wachter (λ3 = 0)" }})
}

func (r searchRunner) about() about { return r.a }

func (r searchRunner) run(ctx context.Context, s *split) ([]*outcome, error) {
	c := r.config(s)
	what := r.what(c)
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
		oc := &outcome{res: r, x: xs[i], path: p, measured: p.Failure == ""}
		for k, o := range e.Counterfactuals {
			oc.options = append(oc.options, o.Counterfactual)
			if k > 0 {
				oc.res.Options = append(oc.res.Options, o.CounterfactualOriginal)
			}
		}
		out[i] = oc
	}
	return out
}

package eval

import (
	"context"
	"fmt"
	"math"

	"github.com/quce-go/quce/quce"
)

// SweepPoint is QUCE's behaviour at one value of a λ: the picture of the paper's
// Proposition 2 (a larger λ3 buys plausibility with proximity).
type SweepPoint struct {
	Lambda        float64 `json:"lambda"`
	Validity      float64 `json:"validity"`       // share of valid counterfactuals
	ProximityL1   float64 `json:"proximity_l1"`   // mean ‖x_c − x‖₁, standardised
	CFUncertainty float64 `json:"cf_uncertainty"` // mean L_ε(x_c), paper form
}

// Sweep explains queries once per value of the λ named lambda ("lambda1", "lambda2" or
// "lambda3"), all other settings from cfg.
func Sweep(ctx context.Context, e *quce.Explainer, cfg quce.Config, queries []quce.Query, lambda string, values []float64) ([]SweepPoint, error) {
	var out []SweepPoint
	for _, v := range values {
		c := cfg
		switch lambda {
		case "lambda1":
			c.Lambda1 = v
		case "lambda2":
			c.Lambda2 = v
		case "lambda3":
			c.Lambda3 = v
		default:
			return nil, fmt.Errorf("eval: unknown λ %q; fix: use lambda1, lambda2 or lambda3", lambda)
		}
		ex, err := e.Explain(ctx, c, queries)
		if err != nil {
			return nil, fmt.Errorf("eval: sweep at %s = %g: %w", lambda, v, err)
		}
		p := SweepPoint{Lambda: v}
		for _, x := range ex {
			path := x.Path0()
			if path.Valid {
				p.Validity++
			}
			p.ProximityL1 += L1(path.Counterfactual, x.X)
			p.CFUncertainty += path.CFUncertaintyPaper
		}
		n := float64(len(ex))
		p.Validity, p.ProximityL1, p.CFUncertainty = p.Validity/n, p.ProximityL1/n, p.CFUncertainty/n
		if math.IsNaN(p.CFUncertainty) {
			return nil, fmt.Errorf("eval: sweep at %s = %g gave a NaN uncertainty", lambda, v)
		}
		out = append(out, p)
	}
	return out, nil
}

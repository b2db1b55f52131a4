package eval

import (
	"context"
	"fmt"
	"math"

	"github.com/quce-go/quce/quce"
)

// IG is the straight line from x to the QUCE counterfactual x_c (the paper's IG-QUCE),
// measured with the same path attribution.
const IG Method = "ig"

type igRunner struct{}

func init() { register(igRunner{}) }

// ig's counterfactual is QUCE's, so the counterfactual metrics would be QUCE's: they are
// left out.
func (igRunner) about() about {
	return about{name: IG, title: "IG-QUCE", label: "IG", aliases: []string{"ig-quce"}, color: okabeIto.orange, order: 30, inDefault: true,
		path: true, needs: []Method{QUCE}}
}

func (igRunner) run(ctx context.Context, s *split) ([]*outcome, error) {
	s.logf("eval: %s: straight-line IG to QUCE's counterfactuals (%d points)", s.name, s.igPoints)
	// IG goes to QUCE's counterfactual, so an instance whose QUCE search failed has no IG
	// path.
	q := s.outs[QUCE]
	var idx []int
	var lines [][][]float64
	var qs []quce.Query
	for i, x := range s.xs {
		if p := q[i].path; p.Failure == "" {
			idx, qs = append(idx, i), append(qs, s.queries[i])
			lines = append(lines, straightLine(x, p.Counterfactual, s.igPoints))
		}
	}
	var ex []*quce.Explanation
	if len(idx) > 0 {
		var err error
		if ex, err = s.d.Explainer.ExplainPaths(ctx, s.cfg, qs, lines); err != nil {
			return nil, fmt.Errorf("eval: IG on the %s split: %w", s.name, err)
		}
	}
	measured := pathOutcomes(subset(s.base, idx), subset(s.xs, idx), ex, s.o.Config.Threshold, "ends at QUCE's counterfactual, which is not valid: ")
	outs := make([]*outcome, len(s.xs))
	for k, i := range idx {
		outs[i] = measured[k]
	}
	for i, oc := range outs {
		if oc == nil {
			r := s.base[i]
			r.Original, r.Target = q[i].res.Original, q[i].res.Target
			r.ProbEnd = math.NaN()
			r.Failure = "QUCE's search failed, so there is no counterfactual for IG to go to: " + q[i].path.Failure
			outs[i] = &outcome{res: r, x: s.xs[i]}
		}
	}
	return outs, nil
}

// straightLine is the path of p points from x to xc (x and xc exactly at its ends).
func straightLine(x, xc []float64, p int) [][]float64 {
	out := make([][]float64, p)
	out[0] = append([]float64(nil), x...)
	for k := 1; k < p-1; k++ {
		t := float64(k) / float64(p-1)
		pt := make([]float64, len(x))
		for j := range x {
			pt[j] = x[j] + t*(xc[j]-x[j])
		}
		out[k] = pt
	}
	out[p-1] = append([]float64(nil), xc...)
	return out
}

// subset is the elements of v at idx.
func subset[T any](v []T, idx []int) []T {
	out := make([]T, len(idx))
	for k, i := range idx {
		out[k] = v[i]
	}
	return out
}

package eval

import (
	"context"
	"math"
	"slices"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// The recourse metrics of the CARLA benchmark (Pawelczyk et al., 2021), for the methods with
// their own counterfactual (docs/METHOD.md#recourse-metrics).
const (
	// YNN is the share of the counterfactual's k = YNNNeighbours nearest training rows
	// (standardised inputs) that the model predicts as the counterfactual's target class:
	// how far inside the target class's region, as the model sees it, x_c lies.
	YNN = "ynn"
	// Redundancy counts the changed columns that could each be set back to the instance's
	// value alone and the counterfactual stay valid (F(τ) ≥ ϑ): changes it did not need.
	Redundancy = "redundancy"
	// DistanceL1MinMax, DistanceL2MinMax and DistanceLinfMinMax are ‖x_c − x‖₁, ₂ and ∞ with
	// every input min-max normalised by the training split's range, (v − min)/(max − min),
	// a categorical column's one-hot inputs as 0/1. The ℓ0 distance is Sparsity.
	DistanceL1MinMax   = "distance_l1_minmax"
	DistanceL2MinMax   = "distance_l2_minmax"
	DistanceLinfMinMax = "distance_linf_minmax"
	// ConstraintViolations counts the counterfactuals (valid or not) that break a
	// constraint of Options.Constraints: a frozen column changed, an increase-only column
	// decreased, a decrease-only one increased, or a value outside a bound.
	ConstraintViolations = "constraint_violations"

	// The recourse metrics again on the matched instances (see ProximityL1Matched).
	YNNMatched                = "ynn_matched"
	RedundancyMatched         = "redundancy_matched"
	DistanceL1MinMaxMatched   = "distance_l1_minmax_matched"
	DistanceL2MinMaxMatched   = "distance_l2_minmax_matched"
	DistanceLinfMinMaxMatched = "distance_linf_minmax_matched"
)

// YNNNeighbours is the k of YNN, as in CARLA.
const YNNNeighbours = 5

// matchedOf maps each matched metric to the metric it averages on the matched instances.
var matchedOf = []struct{ matched, of string }{
	{ProximityL1Matched, ProximityL1}, {CFUncertaintyMatched, CFUncertainty},
	{YNNMatched, YNN}, {RedundancyMatched, Redundancy}, {DistanceL1MinMaxMatched, DistanceL1MinMax},
	{DistanceL2MinMaxMatched, DistanceL2MinMax}, {DistanceLinfMinMaxMatched, DistanceLinfMinMax},
}

// MinMaxDistances are ‖x_c − x‖₁, ₂ and ∞ with input f divided by hi[f] − lo[f], the
// training split's range (a constant input, whose range is 0, by 1).
func MinMaxDistances(x, xc, lo, hi []float64) (l1, l2, linf float64) {
	for f := range x {
		r := hi[f] - lo[f]
		if !(r > 0) {
			r = 1
		}
		d := math.Abs(xc[f]-x[f]) / r
		l1, l2, linf = l1+d, l2+d*d, max(linf, d)
	}
	return l1, math.Sqrt(l2), linf
}

// NearestNeighbours are the positions of the k rows of train nearest to x (Euclidean),
// nearest first, ties by position.
func NearestNeighbours(train [][]float64, x []float64, k int) []int {
	idx := make([]int, len(train))
	dist := make([]float64, len(train))
	for i, r := range train {
		idx[i] = i
		for f := range x {
			d := r[f] - x[f]
			dist[i] += d * d
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case dist[a] < dist[b]:
			return -1
		case dist[a] > dist[b]:
			return 1
		}
		return 0
	})
	return idx[:min(k, len(idx))]
}

// YNNShare is the share of the rows at neighbours whose predicted class (predicted, per
// training row) is target.
func YNNShare(predicted []int, neighbours []int, target int) float64 {
	hit := 0
	for _, i := range neighbours {
		if predicted[i] == target {
			hit++
		}
	}
	return float64(hit) / float64(len(neighbours))
}

// SetBack is, for each column of cols that xc changed from x (data.ChangedColumns with
// tolerance tol), xc with that column alone set back to x: the rows whose validity
// Redundancy counts.
func SetBack(cols []data.Column, x, xc []float64, tol float64) [][]float64 {
	var out [][]float64
	for _, ci := range data.ChangedColumns(cols, x, xc, tol) {
		c := cols[ci]
		r := slices.Clone(xc)
		copy(r[c.Start:c.Start+c.Width], x[c.Start:c.Start+c.Width])
		out = append(out, r)
	}
	return out
}

// Violates reports whether the counterfactual xc (data units) breaks a constraint of the
// query q (quce.Explainer.Constrain): an input that q freezes and that changed, or a value
// outside q's own bounds (Lower, Upper; NaN sides are the observed range, not the user's,
// and do not count). orig is the instance in data units. Values equal up to a trip through
// the scaler count as equal.
func Violates(q quce.Query, orig, xc []float64) bool {
	for f := range xc {
		if q.Frozen != nil && q.Frozen[f] && !sameValue(xc[f], orig[f]) {
			return true
		}
		if q.Lower != nil && !math.IsNaN(q.Lower[f]) && xc[f] < q.Lower[f]-tolerance(q.Lower[f]) {
			return true
		}
		if q.Upper != nil && !math.IsNaN(q.Upper[f]) && xc[f] > q.Upper[f]+tolerance(q.Upper[f]) {
			return true
		}
	}
	return false
}

// recourse adds the recourse metrics to the per-instance metrics of every outcome with a
// counterfactual of its method's own: the distances, YNN and the constraint check for every
// such counterfactual, Redundancy for the valid ones (with one model prediction per changed
// column, all in one batch).
func (s *split) recourse(ctx context.Context) error {
	pred, err := s.predicted(ctx, Train)
	if err != nil {
		return err
	}
	cols := s.d.Explainer.Columns()
	var back [][]float64
	type pending struct {
		oc     *outcome
		n      int
		target int
	}
	var owners []pending
	for _, m := range s.o.Methods {
		if !Applies(m, Redundancy) {
			continue
		}
		for i, oc := range s.outs[m] {
			xc := oc.res.Counterfactual
			if xc == nil || oc.res.Metrics == nil {
				continue
			}
			met := oc.res.Metrics
			met[DistanceL1MinMax], met[DistanceL2MinMax], met[DistanceLinfMinMax] = MinMaxDistances(oc.x, xc, s.lo, s.hi)
			met[YNN] = YNNShare(pred, NearestNeighbours(s.d.Train.X, xc, YNNNeighbours), oc.res.Target)
			if oc.res.CounterfactualOriginal != nil {
				met[ConstraintViolations] = 0
				if Violates(s.queries[i], s.boxes[i].orig, oc.res.CounterfactualOriginal) {
					met[ConstraintViolations] = 1
				}
			}
			if oc.res.Valid {
				rows := SetBack(cols, oc.x, xc, s.o.SparsityTol)
				back = append(back, rows...)
				owners = append(owners, pending{oc, len(rows), oc.res.Target})
			}
		}
	}
	var probs [][]float64
	if len(back) > 0 {
		if probs, err = s.mdl.probs.At(ctx, back); err != nil {
			return err
		}
	}
	for _, p := range owners {
		redundant := 0
		for _, pr := range probs[:p.n] {
			if pr[p.target] >= s.o.Config.Threshold {
				redundant++
			}
		}
		p.oc.res.Metrics[Redundancy] = float64(redundant)
		probs = probs[p.n:]
	}
	return nil
}

package eval

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/quce-go/quce/quce"
)

// uncChunk is the fixed row count of VAE evaluations: one compiled shape serves them all,
// and memory stays at one chunk however many points are measured.
const uncChunk = 2048

// uncertainty returns L_ε (trained and paper form) and the reconstruction at points, in
// fixed-size chunks.
func uncertainty(ctx context.Context, e *quce.Explainer, pts [][]float64) (trained, paper []float64, recon [][]float64, err error) {
	j := e.NumFeatures()
	buf := make([][]float64, uncChunk)
	for start := 0; start < len(pts); start += uncChunk {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		end := min(start+uncChunk, len(pts))
		copy(buf, pts[start:end])
		for i := end - start; i < uncChunk; i++ {
			buf[i] = make([]float64, j)
		}
		t, p, r, err := e.Uncertainty(buf)
		if err != nil {
			return nil, nil, nil, err
		}
		trained = append(trained, t[:end-start]...)
		paper = append(paper, p[:end-start]...)
		recon = append(recon, r[:end-start]...)
	}
	return trained, paper, recon, nil
}

// uncAcc streams points through the VAE: each point's L_ε (trained, paper) times a weight
// is added to two destinations. Memory stays at one chunk.
type uncAcc struct {
	ctx  context.Context
	e    *quce.Explainer
	pts  [][]float64
	jobs []uncJob
}

type uncJob struct {
	trained, paper *float64
	w              float64
}

func (a *uncAcc) add(pt []float64, trained, paper *float64, w float64) error {
	a.pts = append(a.pts, pt)
	a.jobs = append(a.jobs, uncJob{trained, paper, w})
	if len(a.pts) >= uncChunk {
		return a.flush()
	}
	return nil
}

func (a *uncAcc) flush() error {
	if len(a.pts) == 0 {
		return nil
	}
	t, p, _, err := uncertainty(a.ctx, a.e, a.pts)
	if err != nil {
		return err
	}
	for k, job := range a.jobs {
		*job.trained += job.w * t[k]
		*job.paper += job.w * p[k]
	}
	a.pts, a.jobs = a.pts[:0], a.jobs[:0]
	return nil
}

// perInstance holds the running sums of one outcome's metrics.
type perInstance struct {
	pathTrained, pathPaper float64
}

// measure computes the per-instance metrics of every outcome into res.Metrics.
func measure(ctx context.Context, e *quce.Explainer, mdl *model, o Options, outs map[Method][]*outcome) error {
	acc := &uncAcc{ctx: ctx, e: e}
	sums := map[*outcome]*perInstance{}
	var cfs [][]float64
	var cfOwners []*outcome
	var game [][]float64
	var gameClass []int
	var gameOwners []*outcome
	j := e.NumFeatures()
	zero := make([]float64, j)
	for _, m := range o.Methods {
		for _, oc := range outs[m] {
			oc.res.Metrics = map[string]float64{}
			if m.HasPath() && oc.measured {
				// Path uncertainty at o.Interp interpolation points. A point that is exactly a
				// recorded path point reuses the L_ε the explainer measured there.
				pi := &perInstance{}
				sums[oc] = pi
				pts := oc.path.Points
				w := 1 / float64(o.Interp)
				for k := 1; k <= o.Interp; k++ {
					seg, frac := Locate(pts, k, o.Interp, o.ArcLength)
					if frac == 0 && len(oc.path.UncertaintyPaper) == len(pts) && len(oc.path.Uncertainty) == len(pts) {
						pi.pathTrained += w * oc.path.Uncertainty[seg]
						pi.pathPaper += w * oc.path.UncertaintyPaper[seg]
						continue
					}
					if err := acc.add(lerp(pts, seg, frac), &pi.pathTrained, &pi.pathPaper, w); err != nil {
						return err
					}
				}
				oc.res.Metrics[CompletenessGap] = oc.path.CompletenessGap
				game = append(game, DeletionPoints(oc.x, oc.path.Attribution, zero)...)
				game = append(game, InsertionPoints(oc.x, oc.path.Attribution, zero)...)
				for range 2 * j {
					gameClass = append(gameClass, oc.res.Original)
				}
				gameOwners = append(gameOwners, oc)
			}
			if a, _ := lookup(m); a.ownCounterfactual && oc.res.Counterfactual != nil && (oc.measured || !m.HasPath()) {
				cfs = append(cfs, oc.res.Counterfactual)
				cfOwners = append(cfOwners, oc)
			}
		}
	}
	if err := acc.flush(); err != nil {
		return err
	}
	for oc, pi := range sums {
		oc.res.Metrics["path_uncertainty"] = pi.pathPaper
		oc.res.Metrics["path_uncertainty_trained"] = pi.pathTrained
	}
	if len(cfs) > 0 {
		t, p, recon, err := uncertainty(ctx, e, cfs)
		if err != nil {
			return err
		}
		for i, oc := range cfOwners {
			xc := cfs[i]
			oc.res.Metrics[CFUncertainty] = p[i]
			oc.res.Metrics[CFUncertaintyTrained] = t[i]
			oc.res.Metrics[CFReconError] = ReconError(xc, recon[i])
			oc.res.Metrics[ProximityL1] = L1(xc, oc.x)
			oc.res.Metrics[ProximityL2] = L2(xc, oc.x)
			oc.res.Metrics[Sparsity] = float64(Changed(e.Columns(), oc.x, xc, o.SparsityTol))
		}
	}
	if len(game) > 0 {
		probs, err := mdl.probs.At(ctx, game)
		if err != nil {
			return err
		}
		p := make([]float64, len(probs))
		for i, pr := range probs {
			p[i] = pr[gameClass[i]]
		}
		for i, oc := range gameOwners {
			at := p[2*i*j:]
			oc.res.Metrics[Deletion] = GameScore(at[:j])
			oc.res.Metrics[Insertion] = GameScore(at[j : 2*j])
		}
	}
	for _, m := range o.Methods {
		for _, oc := range outs[m] {
			for k, v := range oc.res.Metrics {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					delete(oc.res.Metrics, k)
					oc.res.Warnings = append(oc.res.Warnings, fmt.Sprintf("%s is %v; left out of the averages", k, v))
				}
			}
			slices.Sort(oc.res.Warnings)
		}
	}
	return nil
}

// aggregate turns one method's per-instance metrics on one split into the report's
// metrics. Path and attribution metrics average over instances with a measured path (an
// instance whose search failed numerically has none); counterfactual metrics over valid
// counterfactuals (every counterfactual with o.AllCounterfactuals); validity is over all
// instances. A metric no instance could be measured for is left out.
func aggregate(m Method, outs []*outcome, o Options) map[string]float64 {
	res := map[string]float64{}
	collect := func(key string, cf bool) []float64 {
		var v []float64
		for _, oc := range outs {
			if cf && !oc.res.Valid && !o.AllCounterfactuals {
				continue
			}
			if x, ok := oc.res.Metrics[key]; ok {
				if key == CompletenessGap {
					x = math.Abs(x)
				}
				v = append(v, x)
			}
		}
		return v
	}
	put := func(key string, v float64) {
		if Applies(m, key) && !math.IsNaN(v) && !math.IsInf(v, 0) {
			res[key] = v
		}
	}
	if v := collect("path_uncertainty", false); len(v) > 0 {
		mean, std := MeanStd(v)
		put(PathUncertaintyMean, mean)
		put(PathUncertaintyStd, std)
	}
	if v := collect("path_uncertainty_trained", false); len(v) > 0 {
		mean, std := MeanStd(v)
		put(PathUncertaintyTrainedMean, mean)
		put(PathUncertaintyTrainedStd, std)
	}
	for _, key := range []string{CompletenessGap, Deletion, Insertion} {
		if v := collect(key, false); len(v) > 0 {
			mean, _ := MeanStd(v)
			put(key, mean)
		}
	}
	for _, key := range []string{CFUncertainty, CFUncertaintyTrained, CFReconError, ProximityL1, ProximityL2, Sparsity,
		YNN, Redundancy, DistanceL1MinMax, DistanceL2MinMax, DistanceLinfMinMax,
		DiversityContinuous, DiversityCategorical, CountDiversity, OptionsDistanceL1MinMax} {
		if v := collect(key, true); len(v) > 0 {
			mean, _ := MeanStd(v)
			put(key, mean)
		}
	}
	// A violation counts whether or not the counterfactual is valid: it is a count, not a mean.
	if v := collect(ConstraintViolations, false); len(v) > 0 {
		n := 0.0
		for _, x := range v {
			n += x
		}
		put(ConstraintViolations, n)
	}
	// Like validity, over every instance: a failure has no counterfactual to offer.
	if v := collect(CounterfactualsPerRow, false); len(v) > 0 {
		mean, _ := MeanStd(v)
		put(CounterfactualsPerRow, mean)
		two := 0
		for _, n := range v {
			if n >= 2 {
				two++
			}
		}
		put(TwoOrMore, float64(two)/float64(len(v)))
	}
	if len(outs) > 0 {
		valid := 0
		for _, oc := range outs {
			if oc.res.Valid {
				valid++
			}
		}
		put(Validity, float64(valid)/float64(len(outs)))
	}
	return res
}

// matchedInstances are the positions of a split's n instances that every method with
// counterfactuals (of methods) made valid.
func matchedInstances(methods []Method, outs map[Method][]*outcome, n int) []int {
	var both []int
	for i := 0; i < n; i++ {
		all := true
		for _, m := range methods {
			if Applies(m, ProximityL1) && (i >= len(outs[m]) || !outs[m][i].res.Valid) {
				all = false
				break
			}
		}
		if all {
			both = append(both, i)
		}
	}
	return both
}

// meanOver is the mean of metric key over the outcomes at positions at; false when none
// has it.
func meanOver(outs []*outcome, at []int, key string) (float64, bool) {
	var v []float64
	for _, i := range at {
		if x, ok := outs[i].res.Metrics[key]; ok {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return 0, false
	}
	mean, _ := MeanStd(v)
	return mean, true
}

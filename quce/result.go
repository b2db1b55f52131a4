package quce

import (
	"context"
	"math"
	"slices"
	"sort"
	"time"
)

// Path is one optimisation path from x to its counterfactual, with everything measured on it.
// Vectors are indexed by feature; "standardised" means in the units the models see.
type Path struct {
	// Points are the path's kept points (standardised): x_Δ0 = x, ..., x_Δn = x_c, every
	// point or, with Config.PathPoints, evenly spaced ones. Step gives each one's index
	// among all the path's points; the vectors below are measured at the kept points.
	Points [][]float64
	// PointsOriginal are the same points in the data's units, exactly: an input at the
	// instance's value (frozen, reset by Config.Sparse, or unchanged) is the instance's
	// value as given (Query.Original), a discrete column at a legal value is that value,
	// and every value lies inside the query's box in the data's units.
	PointsOriginal [][]float64
	Step           []int
	Probability    []float64 // F(τ|·) at each kept point
	Uncertainty    []float64 // L_ε at each kept point, trained (negative-ELBO) form
	// UncertaintyPaper is L_ε at each point in the paper's form (mean MSE + KL).
	UncertaintyPaper []float64

	Counterfactual         []float64 // x_c = x_Δn (standardised)
	CounterfactualOriginal []float64 // x_c in original units, exactly as PointsOriginal
	ProbEnd                float64   // F(τ|x_c)
	Valid                  bool      // F(τ|x_c) ≥ ϑ and no numerical failure
	Steps                  int       // optimisation steps taken (fewer than n after an early stop)
	Failure                string    // why the path stopped, if it failed numerically
	// RelaxedProb is F(τ|·) where the search ended. With discrete columns (see
	// Explainer.SetColumns) the search's end is then projected onto the nearest legal row,
	// which can change F; ProbEnd is that of the legal row. Without them it equals ProbEnd.
	RelaxedProb float64
	// Projected says the search's end was not a legal row and was moved to one.
	Projected bool
	// Repairs are the columns changed, in order, by the one-column moves that restored
	// validity after the projection (see Explainer.SetColumns); each is a path segment.
	Repairs []int
	// Resets are the columns that Config.Sparse set back to x's values, in the order of
	// the path's last segments (after the optimisation steps and any projection).
	Resets []int

	Attribution      []float64 // Φ: path-integrated gradients of F(τ|·)
	AttributionPlus  []float64 // Φ⁺: straight-line IG from x_c to x_c + ε
	AttributionMinus []float64 // Φ⁻: straight-line IG from x_c to x_c − ε
	Epsilon          []float64 // ε = |x_c − r(x_c)|, r the VAE's reconstruction (vae.VAE.Reconstruction)
	// CompletenessGap is Σ_j Φ_j − (F(τ|x_c) − F(τ|x)): zero for exact integration.
	CompletenessGap float64

	CFUncertainty      float64 // L_ε(x_c), trained form
	CFUncertaintyPaper float64 // L_ε(x_c), paper form (the paper's "VAE loss")
	CFReconError       float64 // mean over features of ε
	// PathUncertainty and PathUncertaintyPaper are the means of L_ε over all the path's
	// points (kept or not).
	PathUncertainty      float64
	PathUncertaintyPaper float64
}

// Explanation is the result for one instance: its paths and the expected attribution
// over them (exQUCE). With one path the expected values equal that path's.
type Explanation struct {
	Target         int       // τ
	PredictedClass int       // f(x): see PredictedClass
	Probabilities  []float64 // F(c|x) for every class c
	X              []float64 // the instance (standardised)
	XOriginal      []float64 // the instance in original units (Query.Original when given)
	ProbStart      float64   // F(τ|x)
	Paths          []*Path   // Paths[0] starts exactly at x; the others at a seeded offset

	Attribution      []float64 // mean over paths of Φ
	AttributionStd   []float64 // standard deviation over paths of Φ (zeros for one path)
	AttributionPlus  []float64 // mean over paths of Φ⁺
	AttributionMinus []float64 // mean over paths of Φ⁻
	// CompletenessGap is mean Σ_j Φ_j − (mean F(τ|x_c) − F(τ|x)).
	CompletenessGap float64
	// Auto says how λ2 and λ3 were chosen, with Config.Auto; nil otherwise.
	Auto *AutoChoice
}

// Path0 is the path that starts exactly at x: the QUCE explanation proper.
func (e *Explanation) Path0() *Path { return e.Paths[0] }

// ValidRate is the share of paths whose counterfactual is valid.
func (e *Explanation) ValidRate() float64 {
	n := 0
	for _, p := range e.Paths {
		if p.Valid {
			n++
		}
	}
	return float64(n) / float64(len(e.Paths))
}

// assemble adds ε and the ± integrals to the walked rows and builds the results.
func (e *Explainer) assemble(ctx context.Context, cfg Config, queries []Query, pred [][]float64, rows []*row, tm *Timings) ([]*Explanation, error) {
	t0 := time.Now()
	j := e.NumFeatures()
	last := make([][]float32, len(rows))
	for i, r := range rows {
		last[i] = r.last.x
	}
	_, _, recon, err := e.pointsMany(last)
	if err != nil {
		return nil, err
	}
	// Φ± are straight-line integrals from x_c to x_c ± ε with K right-endpoint points.
	invK := 1 / float64(cfg.K)
	eps := make([][]float32, len(rows))
	var pts [][]float32
	var targets [][]float32
	for i, r := range rows {
		eps[i] = make([]float32, j)
		for f := range eps[i] {
			eps[i][f] = float32(math.Abs(float64(last[i][f] - recon[i][f])))
		}
		for _, dir := range []float32{1, -1} {
			for k := 1; k <= cfg.K; k++ {
				pt := make([]float32, j)
				for f := range pt {
					pt[f] = last[i][f] + dir*float32(float64(k)*invK)*eps[i][f]
				}
				pts = append(pts, pt)
				targets = append(targets, r.onehot)
			}
		}
	}
	_, grads, err := e.probeMany(ctx, pts, targets)
	if err != nil {
		return nil, err
	}
	out := make([]*Explanation, len(queries))
	for qi, q := range queries {
		first := rows[qi*cfg.Paths]
		out[qi] = &Explanation{
			Target: first.target, PredictedClass: PredictedClass(pred[qi], cfg.Threshold),
			Probabilities: pred[qi],
			X:             append([]float64(nil), q.X...), XOriginal: slices.Clone(first.x0orig),
			ProbStart: float64(first.kept.points[0].prob),
		}
	}
	for i, r := range rows {
		plus, minus := make([]float64, j), make([]float64, j)
		base := i * 2 * cfg.K
		for k := 0; k < cfg.K; k++ {
			gp, gm := grads[base+k], grads[base+cfg.K+k]
			for f := 0; f < j; f++ {
				plus[f] += float64(eps[i][f]) * invK * float64(gp[f])
				minus[f] -= float64(eps[i][f]) * invK * float64(gm[f])
			}
		}
		p := e.pathResult(cfg, r, plus, minus, eps[i])
		out[r.query].Paths = append(out[r.query].Paths, p)
	}
	for _, ex := range out {
		ex.expectation()
	}
	tm.Uncertainty += time.Since(t0).Seconds()
	return out, nil
}

func (e *Explainer) pathResult(cfg Config, r *row, plus, minus []float64, eps []float32) *Path {
	kept := r.kept.points
	if kept[len(kept)-1].step != r.last.step {
		kept = append(kept, r.last)
	}
	p := &Path{
		Points: make([][]float64, len(kept)), PointsOriginal: make([][]float64, len(kept)), Step: make([]int, len(kept)),
		Probability: make([]float64, len(kept)), Uncertainty: make([]float64, len(kept)), UncertaintyPaper: make([]float64, len(kept)),
		Attribution: r.phi, AttributionPlus: plus, AttributionMinus: minus, Epsilon: toF64(eps),
		Steps: r.searched - 1, Failure: r.failure, Resets: r.resets, Repairs: r.repairs,
		RelaxedProb: float64(r.relaxedProb), Projected: r.projected,
	}
	if r.offset {
		p.Steps-- // the jump to the offset start is not an optimisation step
	}
	for i, k := range kept {
		p.Points[i], p.PointsOriginal[i], p.Step[i] = toF64(k.x), e.dataUnits(r.box(), k.x), k.step
		p.Probability[i], p.Uncertainty[i], p.UncertaintyPaper[i] = float64(k.prob), float64(k.unc), float64(k.uncPapr)
	}
	p.Counterfactual = toF64(r.last.x)
	p.CounterfactualOriginal = e.dataUnits(r.box(), r.last.x)
	p.ProbEnd = float64(r.last.prob)
	p.Valid = p.ProbEnd >= cfg.Threshold && r.failure == ""
	sum := 0.0
	for _, v := range r.phi {
		sum += v
	}
	p.CompletenessGap = sum - (p.ProbEnd - p.Probability[0])
	p.CFUncertainty, p.CFUncertaintyPaper = float64(r.last.unc), float64(r.last.uncPapr)
	p.CFReconError = mean(p.Epsilon)
	p.PathUncertainty, p.PathUncertaintyPaper = r.sumUnc/float64(r.n), r.sumPaper/float64(r.n)
	return p
}

// expectation fills the exQUCE fields from the paths.
func (x *Explanation) expectation() {
	j := len(x.Paths[0].Attribution) // inputs, or columns (ByColumn)
	m := float64(len(x.Paths))
	x.Attribution, x.AttributionStd = make([]float64, j), make([]float64, j)
	x.AttributionPlus, x.AttributionMinus = make([]float64, j), make([]float64, j)
	sumPhi, meanEnd := 0.0, 0.0
	for _, p := range x.Paths {
		for f := 0; f < j; f++ {
			x.Attribution[f] += p.Attribution[f] / m
			x.AttributionPlus[f] += p.AttributionPlus[f] / m
			x.AttributionMinus[f] += p.AttributionMinus[f] / m
			sumPhi += p.Attribution[f] / m
		}
		meanEnd += p.ProbEnd / m
	}
	if len(x.Paths) > 1 {
		for f := 0; f < j; f++ {
			ss := 0.0
			for _, p := range x.Paths {
				d := p.Attribution[f] - x.Attribution[f]
				ss += d * d
			}
			x.AttributionStd[f] = math.Sqrt(ss / (m - 1))
		}
	}
	x.CompletenessGap = sumPhi - (meanEnd - x.ProbStart)
}

// RankFeatures orders features by |attribution|, largest first (ties keep feature order).
func RankFeatures(attr []float64) []int {
	order := make([]int, len(attr))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return math.Abs(attr[order[a]]) > math.Abs(attr[order[b]]) })
	return order
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
